/**
 * Measurement 13: the real adapters over real HTTP. tollgate's four adapters (tollgate/openai
 * `openAIChat` and `openAIResponses`, tollgate/anthropic, tollgate/gemini) in an `AgentLoop`,
 * beside the AI SDK 7's matching providers (`@ai-sdk/openai` chat and responses,
 * `@ai-sdk/anthropic`, `@ai-sdk/google`) with `generateText` / `streamText`, both against one
 * loopback stand-in (real-http-server.ts, in a child process, so its CPU is not the client's)
 * that answers in each API's recorded wire format (real-http-wire.ts).
 *
 * A run: N tool-call answers (one call per step, N = 1 or 5), then a text answer of 20 deltas;
 * streamed (SSE) or not (JSON). The same zod tool for both. tollgate streamed: the adapter as
 * it is, read through `loop.stream()`; not streamed: the adapter's `generate` alone (the loop
 * streams whenever its provider can, so a provider without `stream` is how JSON is asked for),
 * through `loop.run()`. The AI SDK: `streamText` read through `textStream`, or `generateText`.
 * Providers, loops and tools are made once, as in an app; every run checks the tool ran N
 * times, the steps, the final text (and, streamed, the 20 deltas), and at the end the stand-in's
 * request counts say each contender asked the way it should (SSE or JSON) N + 1 times a run.
 *
 * Per contender: client CPU time per run (`process.cpuUsage()`, user + system, µs: the whole
 * client process, GC and compiler threads included) and wall time per run, over interleaved
 * rounds (one batch of runs per contender per round, the order rotating).
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { createAnthropic } from "@ai-sdk/anthropic";
import { createGoogleGenerativeAI } from "@ai-sdk/google";
import { createOpenAI } from "@ai-sdk/openai";
import { tool as aiTool, generateText, type LanguageModel, stepCountIs, streamText } from "ai";
import { build } from "esbuild";
import { AgentLoop, type Provider, type RunResult, tool } from "tollgate";
import { anthropic } from "tollgate/anthropic";
import { gemini } from "tollgate/gemini";
import { openAIChat, openAIResponses } from "tollgate/openai";
import { z } from "zod";
import { makeBuildDir, ROOT } from "./compile.js";
import { type Contender, Counter, expectEqual, type Stats, stats } from "./harness.js";
import {
  APIS,
  type Api,
  ARGS,
  answerDeltas,
  buildWires,
  expectedResult,
  MODELS,
  TOOL,
  type Wire,
} from "./real-http-wire.js";

export { API_NAMES } from "./real-http-wire.js";

/** How long the section measures each table row. */
export interface HttpBudget {
  /** Rounds: one batch per contender per round. */
  rounds: number;
  /** Wall time of one batch, in ms. */
  sampleMs: number;
  /** Warm-up per contender, in ms (at least 2 runs). */
  warmupMs: number;
}

export const HTTP_FULL: HttpBudget = { rounds: 15, sampleMs: 60, warmupMs: 300 };
export const HTTP_QUICK: HttpBudget = { rounds: 3, sampleMs: 8, warmupMs: 20 };

/** Tool calls per run (one per step). */
export const HTTP_CALLS = [1, 5] as const;

const PROMPT = "What's the weather in Oslo?";
const API_KEY = "stand-in-key";
const FIXTURES = join(ROOT, "test/fixtures/real");

/** One contender's figures per run, in µs. */
export interface HttpReading {
  cpu: Stats;
  wall: Stats;
}

/** One row of the section: one API, one mode, one run length; tollgate beside the AI SDK. */
export interface HttpRow {
  api: Api;
  streamed: boolean;
  calls: number;
  tollgate: HttpReading;
  ai: HttpReading;
  /** The HTTP exchanges alone (`floorContender`): what no client goes below. */
  floor: HttpReading;
  /** AI SDK ÷ tollgate, round by round. */
  cpuRatio: Stats;
  wallRatio: Stats;
}

/** What the section measured. */
export interface HttpReadings {
  rows: HttpRow[];
  /** Requests the stand-in served, all rows and warm-ups included. */
  requests: number;
}

/** A contender of this section: a run, checked, and how many it has done. */
interface HttpContender {
  name: string;
  /** The stand-in's request-count key of its runs (see real-http-server.ts `/stats`). */
  statKey: string;
  requestsPerRun: number;
  runs: number;
  run(): Promise<void>;
}

type Client = "tollgate" | "ai" | "floor";

const pathFor = (client: Client, calls: number, api: Api) =>
  `/${client}-${calls}${api === "gemini" ? "/v1beta" : "/v1"}`;

/** The zod tool both clients get. */
const input = z.object({ city: z.string() });

function tollgateProvider(api: Api, baseURL: string): Provider {
  const options = { model: MODELS[api], baseURL, apiKey: API_KEY, maxRetries: 0 };
  switch (api) {
    case "chat":
      return openAIChat(options);
    case "responses":
      return openAIResponses(options);
    case "anthropic":
      return anthropic(options);
    case "gemini":
      return gemini(options);
  }
}

function tollgateContender(
  api: Api,
  streamed: boolean,
  calls: number,
  url: string,
  text: string,
): HttpContender {
  const name = `tollgate ${api} ${streamed ? "stream" : "json"} ${calls}`;
  const counter = new Counter();
  const adapter = tollgateProvider(api, url + pathFor("tollgate", calls, api));
  // Without `stream`, the loop calls `generate`: the adapter's JSON request.
  const provider: Provider = streamed
    ? adapter
    : { name: adapter.name, model: adapter.model, generate: adapter.generate };
  const getWeather = tool({
    name: TOOL,
    description: "Current weather for a city",
    input,
    execute: async ({ city }) => {
      counter.count++;
      return { city, tempC: 21 };
    },
  });
  const loop = new AgentLoop({ provider, tools: [getWeather], maxSteps: calls + 1 });
  const contender: HttpContender = {
    name,
    statKey: `tollgate-${calls} ${api} ${streamed ? "sse" : "json"}`,
    requestsPerRun: calls + 1,
    runs: 0,
    async run() {
      contender.runs++;
      let result: RunResult | undefined;
      if (streamed) {
        let deltas = 0;
        for await (const event of loop.stream(PROMPT)) {
          if (event.type === "text-delta") deltas++;
          else if (event.type === "run-finish") result = event.result;
        }
        expectEqual(`${name}: text deltas`, deltas, 20);
      } else {
        result = await loop.run(PROMPT);
      }
      expectEqual(`${name}: status`, result?.status, "completed");
      expectEqual(`${name}: text`, result!.text, text);
      expectEqual(`${name}: steps`, result!.steps.length, calls + 1);
      counter.expect(name, calls);
    },
  };
  return contender;
}

function aiModel(api: Api, baseURL: string): LanguageModel {
  const options = { baseURL, apiKey: API_KEY };
  switch (api) {
    case "chat":
      return createOpenAI(options).chat(MODELS.chat);
    case "responses":
      return createOpenAI(options).responses(MODELS.responses);
    case "anthropic":
      return createAnthropic(options)(MODELS.anthropic);
    case "gemini":
      return createGoogleGenerativeAI(options)(MODELS.gemini);
  }
}

function aiContender(
  api: Api,
  streamed: boolean,
  calls: number,
  url: string,
  text: string,
): HttpContender {
  const name = `AI SDK ${api} ${streamed ? "stream" : "json"} ${calls}`;
  const counter = new Counter();
  const model = aiModel(api, url + pathFor("ai", calls, api));
  const tools = {
    [TOOL]: aiTool({
      description: "Current weather for a city",
      inputSchema: input,
      execute: async ({ city }) => {
        counter.count++;
        return { city, tempC: 21 };
      },
    }),
  };
  const settings = {
    model,
    tools,
    stopWhen: stepCountIs(calls + 1),
    prompt: PROMPT,
    maxRetries: 0,
  };
  const contender: HttpContender = {
    name,
    statKey: `ai-${calls} ${api} ${streamed ? "sse" : "json"}`,
    requestsPerRun: calls + 1,
    runs: 0,
    async run() {
      contender.runs++;
      let finalText: string;
      let steps: number;
      if (streamed) {
        let failure: unknown;
        const result = streamText({
          ...settings,
          onError: ({ error }) => {
            failure = error;
          },
        });
        let deltas = 0;
        // Counts non-empty deltas: the AI SDK passes Gemini's closing "" part (it carries the
        // thought signature) on as a delta of its own; tollgate does not.
        for await (const delta of result.textStream) if (delta !== "") deltas++;
        finalText = await result.text;
        steps = (await result.steps).length;
        if (failure) throw failure;
        expectEqual(`${name}: text deltas`, deltas, 20);
      } else {
        const result = await generateText(settings);
        finalText = result.text;
        steps = result.steps.length;
      }
      expectEqual(`${name}: text`, finalText, text);
      expectEqual(`${name}: steps`, steps, calls + 1);
      counter.expect(name, calls);
    },
  };
  return contender;
}

// ---------------------------------------------------------------------------------------------
// the stand-in, in a child process

interface StandIn {
  url: string;
  stats(): Promise<Record<string, number>>;
  close(): void;
}

/** Bundles real-http-server.ts (esbuild), starts it with node, and waits for its URL. */
async function startStandInChild(): Promise<StandIn> {
  const { dir, dispose } = makeBuildDir();
  try {
    const outfile = join(dir, "real-http-server.mjs");
    await build({
      stdin: {
        contents: `import { standInMain } from ${JSON.stringify(join(ROOT, "bench/real-http-server.ts"))};\nawait standInMain();\n`,
        resolveDir: join(ROOT, "bench"),
        loader: "ts",
      },
      bundle: true,
      format: "esm",
      platform: "node",
      target: "es2022",
      outfile,
      logLevel: "warning",
    });
    const child = spawn(process.execPath, [outfile, FIXTURES], {
      stdio: ["pipe", "pipe", "inherit"],
    });
    const url = await new Promise<string>((resolve, reject) => {
      let out = "";
      child.once("error", reject);
      child.once("exit", (code) => reject(new Error(`the stand-in exited with ${code}`)));
      child.stdout.setEncoding("utf8");
      child.stdout.on("data", (chunk: string) => {
        out += chunk;
        const line = out.split("\n")[0];
        if (out.includes("\n") && line) resolve((JSON.parse(line) as { url: string }).url);
      });
    });
    return {
      url,
      stats: async () => (await (await fetch(`${url}/stats`)).json()) as Record<string, number>,
      close: () => {
        child.stdin.end();
        child.kill();
      },
    };
  } finally {
    dispose();
  }
}

/**
 * The floor: the run's N + 1 HTTP exchanges alone, with the global `fetch` both clients use.
 * Each request body is made ahead (the tool results the stand-in wants, from its own wires),
 * each response is read to its end as text and nothing is parsed: what no client can go below
 * on this stand-in. Checked: every answer is 200, and the last one holds the answer's text.
 */
function floorContender(
  api: Api,
  streamed: boolean,
  calls: number,
  url: string,
  wires: Record<Api, Wire>,
  firstDelta: string,
): HttpContender {
  const name = `fetch floor ${api} ${streamed ? "stream" : "json"} ${calls}`;
  const ids = Array.from({ length: calls }, (_, step) => expectedResult(wires[api], api, step));
  const bodies = ids
    .map((_, k) => ids.slice(0, k))
    .concat([ids])
    .map((results) => JSON.stringify(floorBody(api, streamed, results)));
  const base = url + pathFor("floor", calls, api);
  const target =
    api === "gemini"
      ? `${base}/models/${MODELS.gemini}:${streamed ? "streamGenerateContent?alt=sse" : "generateContent"}`
      : base + FLOOR_PATHS[api];
  const headers = { "content-type": "application/json", authorization: `Bearer ${API_KEY}` };
  // The answer's first delta as JSON writes it (a stream splits the text at the deltas).
  const written = JSON.stringify(firstDelta).slice(1, -1);
  const contender: HttpContender = {
    name,
    statKey: `floor-${calls} ${api} ${streamed ? "sse" : "json"}`,
    requestsPerRun: calls + 1,
    runs: 0,
    async run() {
      contender.runs++;
      let last = "";
      for (const body of bodies) {
        const response = await fetch(target, { method: "POST", headers, body });
        last = await response.text();
        expectEqual(`${name}: status`, response.status, 200);
      }
      expectEqual(`${name}: the answer's text arrived`, last.includes(written), true);
    },
  };
  return contender;
}

/** Each API's path after the base URL (Gemini's names the model and the mode). */
const FLOOR_PATHS = { chat: "/chat/completions", responses: "/responses", anthropic: "/messages" };

/** A request of the API's shape carrying back `results` (the call ids, or Gemini's tool name). */
function floorBody(api: Api, streamed: boolean, results: string[]): unknown {
  const output = JSON.stringify({ city: "Oslo", tempC: 21 });
  switch (api) {
    case "chat":
      return {
        model: MODELS.chat,
        stream: streamed,
        messages: [
          { role: "user", content: PROMPT },
          ...results.flatMap((id) => [
            {
              role: "assistant",
              tool_calls: [{ id, type: "function", function: { name: TOOL, arguments: ARGS } }],
            },
            { role: "tool", tool_call_id: id, content: output },
          ]),
        ],
      };
    case "responses":
      return {
        model: MODELS.responses,
        stream: streamed,
        input: [
          { role: "user", content: PROMPT },
          ...results.map((id) => ({ type: "function_call_output", call_id: id, output })),
        ],
      };
    case "anthropic":
      return {
        model: MODELS.anthropic,
        stream: streamed,
        max_tokens: 1024,
        messages: [
          { role: "user", content: PROMPT },
          ...results.map((id) => ({
            role: "user",
            content: [{ type: "tool_result", tool_use_id: id, content: output }],
          })),
        ],
      };
    case "gemini":
      return {
        contents: [
          { role: "user", parts: [{ text: PROMPT }] },
          ...results.map((name) => ({
            role: "user",
            parts: [{ functionResponse: { name, response: { city: "Oslo", tempC: 21 } } }],
          })),
        ],
      };
  }
}

// ---------------------------------------------------------------------------------------------
// measuring

/** Wall and CPU time of `runs` runs, per run, in µs. */
async function sample(contender: HttpContender, runs: number): Promise<[number, number]> {
  const cpuStart = process.cpuUsage();
  const started = performance.now();
  for (let i = 0; i < runs; i++) await contender.run();
  const wall = ((performance.now() - started) * 1000) / runs;
  const cpu = process.cpuUsage(cpuStart);
  return [(cpu.user + cpu.system) / runs, wall];
}

/**
 * Warms each contender up, sizes its batch to about `sampleMs`, then takes one batch per
 * contender per round, the order rotating each round (as harness.ts `compare` does, with the
 * CPU time of each batch beside its wall time).
 */
async function measure(
  contenders: HttpContender[],
  budget: HttpBudget,
): Promise<Map<string, HttpReading>> {
  const batches = new Map<string, number>();
  for (const contender of contenders) {
    const started = performance.now();
    for (let runs = 0; runs < 2 || performance.now() - started < budget.warmupMs; runs++) {
      await contender.run();
    }
    const [, wall] = await sample(contender, 2);
    batches.set(contender.name, Math.max(1, Math.round((budget.sampleMs * 1000) / wall)));
  }
  const cpu = new Map<string, number[]>(contenders.map((c) => [c.name, []]));
  const wall = new Map<string, number[]>(contenders.map((c) => [c.name, []]));
  for (let round = 0; round < budget.rounds; round++) {
    for (let i = 0; i < contenders.length; i++) {
      const contender = contenders[(i + round) % contenders.length]!;
      const [cpuUs, wallUs] = await sample(contender, batches.get(contender.name)!);
      cpu.get(contender.name)!.push(cpuUs);
      wall.get(contender.name)!.push(wallUs);
    }
  }
  return new Map(
    contenders.map((c) => [
      c.name,
      { cpu: stats(cpu.get(c.name)!), wall: stats(wall.get(c.name)!) },
    ]),
  );
}

/** a ÷ b round by round. */
const ratios = (a: Stats, b: Stats) => stats(a.samples.map((value, i) => value / b.samples[i]!));

/** Every row of the section: each API, streamed and not, 1 and 5 tool calls. */
export async function httpReadings(budget: HttpBudget): Promise<HttpReadings> {
  // The AI SDK's warnings (none expected) would go to stderr on every call; users turn them off too.
  (globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;
  const deltas = answerDeltas(FIXTURES);
  const text = deltas.join("");
  const firstDelta = deltas.find((delta) => delta !== "") ?? text;
  const wires = buildWires(FIXTURES);
  const standIn = await startStandInChild();
  try {
    const rows: HttpRow[] = [];
    const all: HttpContender[] = [];
    const groups = APIS.flatMap((api) =>
      [true, false].flatMap((streamed) =>
        HTTP_CALLS.map((calls) => ({
          api,
          streamed,
          calls,
          pair: [
            tollgateContender(api, streamed, calls, standIn.url, text),
            aiContender(api, streamed, calls, standIn.url, text),
            floorContender(api, streamed, calls, standIn.url, wires, firstDelta),
          ],
        })),
      ),
    );
    // Every contender runs a few times before any row is measured: the code the rows share
    // (fetch, each library's loop) is then compiled for all of them, not only for the later rows.
    for (const { pair } of groups) {
      for (const contender of pair) for (let i = 0; i < 3; i++) await contender.run();
    }
    for (const { api, streamed, calls, pair } of groups) {
      all.push(...pair);
      const results = await measure(pair, budget);
      const tollgate = results.get(pair[0]!.name)!;
      const ai = results.get(pair[1]!.name)!;
      rows.push({
        api,
        streamed,
        calls,
        tollgate,
        ai,
        floor: results.get(pair[2]!.name)!,
        cpuRatio: ratios(ai.cpu, tollgate.cpu),
        wallRatio: ratios(ai.wall, tollgate.wall),
      });
    }
    // Each contender asked the stand-in the way it should (SSE or JSON), N + 1 times a run.
    const served = await standIn.stats();
    for (const contender of all) {
      expectEqual(
        `${contender.name}: requests served as ${contender.statKey}`,
        served[contender.statKey] ?? 0,
        contender.runs * contender.requestsPerRun,
      );
    }
    const requests = Object.values(served).reduce((sum, n) => sum + n, 0);
    return { rows, requests };
  } finally {
    standIn.close();
  }
}

/**
 * `--profile=http-<api>`'s workload: tollgate streamed against the stand-in, 5 tool calls a run
 * (the stand-in runs in its own process, so the profile is the client's alone); with `floor`,
 * the same exchanges by `fetch` alone, to profile what every client pays.
 */
export async function httpProfileContender(api: Api, floor = false): Promise<Contender> {
  const deltas = answerDeltas(FIXTURES);
  const text = deltas.join("");
  const standIn = await startStandInChild();
  process.once("exit", () => standIn.close());
  const contender = floor
    ? floorContender(
        api,
        true,
        5,
        standIn.url,
        buildWires(FIXTURES),
        deltas.find((delta) => delta !== "") ?? text,
      )
    : tollgateContender(api, true, 5, standIn.url, text);
  return { name: contender.name, units: 1, run: () => contender.run() };
}
