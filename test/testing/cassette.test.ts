/**
 * Cassettes (tollgate/testing): a run recorded through the REAL adapters against the replay
 * server of real recorded traffic, replayed offline with the server closed; drift shown as a
 * diff; streamed and whole answers; a paused run and its resume; redaction; the env modes.
 */

import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { AgentLoop, type Provider, type RunResult, tool } from "tollgate";
import { gemini } from "tollgate/gemini";
import { openAIChat } from "tollgate/openai";
import {
  type Cassette,
  CassetteError,
  cassette,
  recordProvider,
  replayProvider,
  scriptedProvider,
} from "tollgate/testing";
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { redactedAcrossDeltas } from "../../src/testing/cassette-record.js";
import { redactShapes } from "../../src/testing/cassette-redact.js";
import { cassetteAnswer, cassette as vcr } from "../providers/support/recordings.js";
import { type ReplayServer, startReplayServer } from "../support/replay-server.js";
import { runs } from "../support/runs.js";

const dir = mkdtempSync(join(tmpdir(), "tollgate-cassettes-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let server: ReplayServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  vi.unstubAllEnvs();
});
let n = 0;
const fresh = () => join(dir, `sub-${n++}`, "run.json");
const read = (path: string): Cassette => JSON.parse(readFileSync(path, "utf8"));

/** The agent of pydantic-ai's test_complex_agent_run.yaml (as in test/providers/agent-loop-replay.test.ts). */
function complexAgent(provider: Provider, instructions?: string) {
  const constant = (name: string, value: string) =>
    tool({ name, description: "", input: z.object({}), execute: async () => value });
  return new AgentLoop({
    provider,
    ...(instructions !== undefined && { instructions }),
    tools: [
      constant("get_country", "Mexico"),
      constant("get_product_name", "Pydantic AI"),
      tool({
        name: "get_weather",
        description: "",
        input: z.object({ city: z.string() }),
        execute: async () => "sunny",
      }),
      tool({
        name: "final_result",
        description: "The final response which ends this conversation",
        input: z.object({ answers: z.array(z.object({ label: z.string(), answer: z.string() })) }),
        execute: async ({ answers }) => answers,
      }),
    ],
    policy: { endsRun: ({ call }) => call.name === "final_result" },
  });
}
const complexRun = vcr("openai-chat/test_complex_agent_run.yaml");
const complexPrompt: string = complexRun[0]?.request.parsed_body.messages[0].content;

/** What a run did, without timings and ids that differ between runs. */
const summary = (result: RunResult) => ({
  status: result.status,
  text: result.text,
  usage: result.usage,
  endedBy: result.endedBy?.args,
  steps: result.steps.map((step) =>
    step.calls.map((call) => [call.toolName, call.rawArgs, call.verdict, call.result?.output]),
  ),
});

async function recordComplexRun(path: string) {
  server = await startReplayServer(complexRun.map((i) => cassetteAnswer(i, { split: "odd" })));
  const real = openAIChat({
    model: "gpt-4o",
    baseURL: `${server.url}/v1`,
    apiKey: "sk-test-1234567890",
  });
  const result = await complexAgent(recordProvider(real, path)).run(complexPrompt);
  await server.close();
  server = undefined;
  return result;
}

describe("record with a real adapter, replay offline", () => {
  it("openAIChat (streamed): the replay with the server closed gives the same run", async () => {
    const path = fresh();
    const live = await recordComplexRun(path);
    expect(live.status).toBe("ended_by_tool");

    const saved = read(path);
    expect(saved.provider).toEqual({ name: "openai", model: "gpt-4o", supportsNativeOutput: true });
    expect(saved.calls.map((c) => [c.run, c.step, c.kind])).toEqual([
      [0, 0, "stream"],
      [0, 1, "stream"],
      [0, 2, "stream"],
    ]);
    const replay = replayProvider(path);
    const offline = await complexAgent(replay).run(complexPrompt);
    expect(summary(offline)).toEqual(summary(live));
    replay.assertComplete();
  });

  it("the checked-in cassette replays, and recording again reproduces it byte for byte", async () => {
    // test/fixtures/cassettes/openai-chat-complex-agent-run.json was recorded by this test's
    // recordComplexRun: the real openAIChat adapter, through recordProvider, against the replay
    // server playing pydantic-ai's test_complex_agent_run.yaml (test/fixtures/real/openai-chat).
    const checkedIn = fileURLToPath(
      new URL("../fixtures/cassettes/openai-chat-complex-agent-run.json", import.meta.url),
    );
    // To record it again: RECORD_CHECKED_IN=1 npx vitest run test/testing/cassette.test.ts
    if (process.env.RECORD_CHECKED_IN === "1") await recordComplexRun(checkedIn);
    const offline = await complexAgent(replayProvider(checkedIn)).run(complexPrompt);
    expect(offline.status).toBe("ended_by_tool");
    expect((offline.endedBy?.args as any)?.answers.map((a: any) => a.label)).toEqual([
      "Capital",
      "Weather",
      "Product Name",
    ]);
    const path = process.env.RECORD_CHECKED_IN === "1" ? checkedIn : fresh();
    await recordComplexRun(path);
    expect(readFileSync(path, "utf8")).toBe(readFileSync(checkedIn, "utf8"));
  });

  it("gemini (whole answers, generate only): five steps recorded and replayed", async () => {
    const interactions = vcr("google/test_google_instructions_only_with_tool_calls.yaml");
    server = await startReplayServer(interactions.map((i) => cassetteAnswer(i)));
    const real = gemini({
      model: "gemini-3-flash-preview",
      baseURL: `${server.url}/v1beta`,
      apiKey: "AIza-test",
    });
    const wholeOnly = (provider: Provider): Provider => ({
      name: provider.name,
      model: provider.model,
      generate: (request, options) => provider.generate(request, options),
    });
    const agent = (provider: Provider) =>
      new AgentLoop({
        provider,
        instructions: "Tell three jokes. Generate topics with the generate_topic tool.",
        tools: [
          tool({
            name: "generate_topic",
            description: "",
            input: z.object({}),
            execute: () => "cats",
          }),
          tool({
            name: "final_result",
            description: "The final response which ends this conversation",
            input: z.object({ response: z.array(z.string()) }),
            execute: ({ response }) => response,
          }),
        ],
        policy: { endsRun: ({ call }) => call.name === "final_result" },
      });
    const path = fresh();
    const live = await agent(wholeOnly(recordProvider(real, path))).run("");
    await server.close();
    server = undefined;
    const saved = read(path);
    expect(saved.calls.map((c) => c.kind)).toEqual(Array(interactions.length).fill("generate"));
    expect(saved.calls[0]).not.toHaveProperty("response.raw");

    const replay = replayProvider(path);
    expect(replay.stream).toBeUndefined(); // recorded whole: replayed whole, as the loop saw it
    const offline = await agent(replay).run("");
    expect(summary(offline)).toEqual(summary(live));
    expect(live.steps.length).toBe(interactions.length);
  });
});

describe("drift", () => {
  const recorded = (() => {
    let path: string | undefined;
    return async () => {
      if (path === undefined) {
        path = fresh();
        await recordComplexRun(path);
      }
      return path;
    };
  })();

  it("a changed prompt fails with a diff: the path, what was recorded and what came", async () => {
    const path = await recorded();
    const error = await complexAgent(replayProvider(path))
      .run("What is the capital of France?")
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CassetteError);
    expect((error as CassetteError).path).toBe(path);
    // A long text shows where it differs (here at once), not the same prefix on both sides.
    const asked = "What is the capital of France?";
    let at = 0;
    while (complexPrompt[at] === asked[at]) at++;
    expect((error as Error).message).toBe(
      `cassette ${path}: the request for run 0, step 0 drifted from the recording (match: "strict"):\n` +
        `  messages[0].content: differs at character ${at} (lengths ${complexPrompt.length} and ${asked.length}): ` +
        `expected ${JSON.stringify(complexPrompt.slice(0, at + 40))}…, got ${JSON.stringify(asked)}\n` +
        "If the change is intended, re-record with TOLLGATE_CASSETTES=record.",
    );
  });

  it('new instructions fail "strict" and pass "tools-and-last-message"; a changed tool fails both', async () => {
    const path = await recorded();
    const strict = await complexAgent(replayProvider(path), "Be brief.")
      .run(complexPrompt)
      .catch((e: unknown) => e);
    expect((strict as Error).message).toContain('  system: expected nothing, got "Be brief."');
    const loose = replayProvider(path, { match: "tools-and-last-message" });
    const result = await complexAgent(loose, "Be brief.").run(complexPrompt);
    expect(result.status).toBe("ended_by_tool");

    const renamed = new AgentLoop({
      provider: replayProvider(path, { match: "tools-and-last-message" }),
      tools: [
        tool({
          name: "get_country",
          description: "Where?",
          input: z.object({}),
          execute: () => "",
        }),
      ],
    });
    const message = ((await renamed.run(complexPrompt).catch((e: unknown) => e)) as Error).message;
    expect(message).toContain('  tools[0].description: expected "", got "Where?"');
    expect(message).toContain('  tools[1]: expected {"description":"","inputSchema"');
    expect(message).toMatch(/got nothing\n/);
  });

  it("a custom match: true passes, a text is the reason, false shows the diff, a throw is named", async () => {
    const path = await recorded();
    const run = (match: (a: any, b: any) => any) =>
      complexAgent(replayProvider(path, { match }), "Be brief.").run(complexPrompt);
    expect((await run(() => true)).status).toBe("ended_by_tool");
    await expect(
      run((a, b) => (a.system === b.system ? true : "the instructions changed")),
    ).rejects.toThrow(/\(match: custom\):\n {2}the instructions changed\n/);
    await expect(run(() => false)).rejects.toThrow(
      / {2}system: expected nothing, got "Be brief\."/,
    );
    await expect(
      run(() => {
        throw new Error("boom");
      }),
    ).rejects.toThrow(/the match function threw: boom/);
    await expect(run(() => 1)).rejects.toThrow(/answered 1, not true, false or a reason/);
    expect(() => replayProvider(path, { match: "loose" as never })).toThrow(
      /`match` must be "strict", "tools-and-last-message" or a function, got "loose"/,
    );
  });
});

describe("replay: the run's shape", () => {
  const lookup = tool({
    name: "lookup",
    description: "Looks an order up",
    input: z.object({ id: z.string() }),
    execute: ({ id }) => `order ${id}: shipped`,
  });
  const pay = tool({
    name: "pay",
    description: "Pays an invoice",
    input: z.object({ invoice: z.string() }),
    needsApproval: true,
    execute: ({ invoice }) => `paid ${invoice}`,
  });

  it("running past the cassette names the file, the run and the step", async () => {
    const path = fresh();
    const script = scriptedProvider([
      { toolCalls: [{ name: "lookup", args: { id: "A-1" } }] },
      { text: "Shipped." },
    ]);
    await new AgentLoop({ provider: recordProvider(script, path), tools: [lookup] }).run(
      "Where is A-1?",
    );
    const replay = replayProvider(path);
    const loop = new AgentLoop({ provider: replay, tools: [lookup] });
    await loop.run("Where is A-1?");
    const second = await loop.run("Where is A-1?").catch((e: unknown) => e);
    expect((second as Error).message).toBe(
      `cassette ${path} has no recorded call for run 1, step 0 (it holds run 0 steps 0, 1); the run went past the recording: re-record it with TOLLGATE_CASSETTES=record`,
    );
    expect(replay.remaining).toBe(0);
  });

  it("streamed parts are replayed in order, deltas included", async () => {
    const path = fresh();
    const script = scriptedProvider([{ text: "It has shipped, on Monday." }], {
      stream: true,
      chunkSize: 5,
    });
    const chunks: string[] = [];
    await new AgentLoop({ provider: recordProvider(script, path), tools: [] }).run("Hi");
    const loop = new AgentLoop({ provider: replayProvider(path), tools: [] });
    loop.on("text-delta", (event) => {
      chunks.push(event.text);
    });
    expect((await loop.run("Hi")).text).toBe("It has shipped, on Monday.");
    expect(chunks).toEqual(["It ha", "s shi", "pped,", " on M", "onday", "."]);
    const [call] = read(path).calls as any[];
    expect([call.kind, call.parts[0], call.parts.at(-1).type]).toEqual([
      "stream",
      { type: "text-delta", text: "It ha" },
      "finish",
    ]);
  });

  it("a cassette that cannot be written is a CassetteError naming it, and leaves no temporary file", async () => {
    const folder = join(dir, `sub-${n++}`);
    mkdirSync(join(folder, "taken"), { recursive: true });
    const path = join(folder, "taken"); // a folder where the file should go
    const provider = recordProvider(scriptedProvider([{ text: "hi" }]), path);
    const error = await new AgentLoop({ provider, tools: [] }).run("Hi").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CassetteError);
    expect((error as Error).message).toMatch(
      new RegExp(`^cassette ${path.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} cannot be written \\(`),
    );
    expect(readdirSync(folder)).toEqual(["taken"]);
  });

  it("a key streamed in pieces is redacted across them; the other pieces stay as streamed", async () => {
    const path = fresh();
    const key = "sk-proj-ABCDEFGHIJKLMNOPQRST";
    const google = "AIzaSyA1234567890abcdefghijklmnop";
    const script = scriptedProvider(
      [
        { toolCalls: [{ name: "save", args: { note: `google ${google} here` } }] },
        { text: `Your key is ${key}, keep it safe.` },
      ],
      { stream: true, chunkSize: 4 },
    );
    const save = tool({ name: "save", input: z.object({ note: z.string() }), execute: () => "ok" });
    await new AgentLoop({ provider: recordProvider(script, path), tools: [save] }).run("Hi");
    const written = readFileSync(path, "utf8");
    const calls = read(path).calls as any[];
    const joined = (parts: any[], pick: (part: any) => string | undefined) =>
      parts
        .map(pick)
        .filter((text) => text !== undefined)
        .join("");
    const args = joined(calls[0].parts, (part) => part.argsDelta);
    const text = joined(calls[1].parts, (part) => part.text);
    expect(args).toBe('{"note":"google [redacted] here"}');
    expect(text).toBe("Your key is [redacted], keep it safe.");
    for (const secret of [key, google, "ABCDEFGH", "1234567890abc"]) {
      expect(written).not.toContain(secret);
    }
    // As many parts as were streamed, the pieces away from the key as they were.
    const said = `Your key is ${key}, keep it safe.`;
    expect(calls[1].parts.filter((part: any) => part.type === "text-delta")).toHaveLength(
      Math.ceil(said.length / 4),
    );
    expect(calls[1].parts[0]).toEqual({ type: "text-delta", text: "Your" });
    const lastCut = Math.floor((said.length - 1) / 4) * 4;
    expect(calls[1].parts.at(-2)).toEqual({ type: "text-delta", text: said.slice(lastCut) });
  });

  it("redacting across deltas gives the text the whole text's redaction gives, however it was cut", () => {
    const secret = fc.constantFrom(
      "sk-proj-ABCDEFGHIJKLMNOPQRST",
      "AIzaSyA1234567890abcdefghijklmnop",
      "Bearer abcdefgh12345678",
      "ghp_abcdefghijklmnop",
    );
    fc.assert(
      fc.property(
        fc.string({ maxLength: 12 }),
        secret,
        fc.string({ maxLength: 12 }),
        fc.array(fc.nat(60), { maxLength: 8 }),
        (before, key, after, cuts) => {
          const text = `${before} ${key} ${after}`;
          const at = [
            ...new Set([0, ...cuts.filter((cut) => cut <= text.length), text.length]),
          ].sort((a, b) => a - b);
          const parts = at.slice(1).map((end, n) => ({
            type: "text-delta" as const,
            text: text.slice(at[n], end),
          }));
          const redacted = redactedAcrossDeltas(parts);
          expect(redacted).toHaveLength(parts.length);
          expect(redacted.map((part) => (part as { text: string }).text).join("")).toBe(
            redactShapes(text),
          );
        },
      ),
      { numRuns: runs(500) },
    );
  });

  it("a paused run and its resume, recorded in one cassette, replay through resume()", async () => {
    const path = fresh();
    const turns = [
      { toolCalls: [{ name: "pay", args: { invoice: "INV-7" }, id: "call_pay" }] },
      { text: "Paid." },
    ];
    const live = new AgentLoop({
      provider: recordProvider(scriptedProvider(turns), path),
      tools: [pay],
      trustState: true,
    });
    const paused = await live.run("Pay INV-7");
    expect(paused.status).toBe("needs_approval");
    const done = await live.resume(paused.state!, { call_pay: { approve: true } });
    expect(done.text).toBe("Paid.");
    expect(read(path).calls.map((c) => [c.run, c.step])).toEqual([
      [0, 0],
      [0, 1],
    ]);

    // Offline, and in a fresh loop as a new process would have: the same pause, the same end.
    const replay = replayProvider(path);
    const offline = new AgentLoop({ provider: replay, tools: [pay], trustState: true });
    const again = await offline.run("Pay INV-7");
    expect(again.pending?.map((p) => [p.toolName, p.args])).toEqual([
      ["pay", { invoice: "INV-7" }],
    ]);
    const resumed = await new AgentLoop({
      provider: replay,
      tools: [pay],
      trustState: true,
    }).resume(again.state!, {
      call_pay: { approve: true },
    });
    expect(resumed.status).toBe("completed");
    expect(resumed.text).toBe("Paid.");
    expect(resumed.steps.at(-1)?.calls).toEqual([]);
    replay.assertComplete();
  });

  it("assertComplete names the calls left; a missing or foreign file is a CassetteError", () => {
    const path = fresh();
    expect(() => replayProvider(path)).toThrow(CassetteError);
    expect(() => replayProvider(path)).toThrow(
      /cannot be read .*record it once by running the test with TOLLGATE_CASSETTES=record/,
    );
    const foreign = fileURLToPath(new URL("../../package.json", import.meta.url));
    expect(() => replayProvider(foreign)).toThrow(
      /is not a tollgate cassette: its tollgateCassette version is not 1/,
    );
  });
});

describe("redaction", () => {
  it("a cassette never holds a secret: keys, auth headers, settings.headers, key-shaped text, configured paths", async () => {
    const path = fresh();
    const secrets = [
      "sk-proj-abcdef123456",
      "hunter2-password",
      "Bearer eyJhbGciOi.abc",
      "tok-998877",
      "AIzaSyA-1234567890abcdefghij",
      "ana@example.com",
    ];
    const provider = recordProvider(
      scriptedProvider([{ text: `Your key is ${secrets[0]}` }]),
      path,
      {
        redact: ["settings.user"],
      },
    );
    const loop = new AgentLoop({
      provider,
      tools: [],
      settings: {
        headers: { "x-trace": "tok-998877" },
        apiKey: "sk-proj-abcdef123456",
        nested: {
          password: "hunter2-password",
          Authorization: "Bearer eyJhbGciOi.abc",
          maxTokens: 5,
        },
        user: "ana@example.com",
        temperature: 0,
      },
    });
    await loop.run("use AIzaSyA-1234567890abcdefghij please");
    const text = readFileSync(path, "utf8");
    for (const secret of secrets) expect(text).not.toContain(secret);
    expect(text).not.toContain("eyJhbGciOi");
    const { settings } = read(path).calls[0]!.request as any;
    expect(settings).toEqual({
      headers: { "x-trace": "[redacted]" },
      apiKey: "[redacted]",
      nested: { password: "[redacted]", Authorization: "[redacted]", maxTokens: 5 },
      user: "[redacted]",
      temperature: 0,
    });
    expect(read(path).redact).toEqual(["settings.user"]);
    // The replay redacts the loop's request the same way, so it matches.
    const replayed = await new AgentLoop({
      ...loopOptions(loop),
      provider: replayProvider(path),
    }).run("use AIzaSyA-1234567890abcdefghij please");
    expect(replayed.text).toBe("Your key is [redacted]");
  });

  it("bad redact paths are a TypeError", () => {
    expect(() => recordProvider(scriptedProvider([]), fresh(), { redact: [""] })).toThrow(
      /`redact` must be an array of paths/,
    );
  });
});

function loopOptions(_loop: AgentLoop) {
  return {
    tools: [],
    settings: {
      headers: { "x-trace": "other-value" },
      apiKey: "sk-proj-different0000",
      nested: { password: "other", Authorization: "Bearer other-token", maxTokens: 5 },
      user: "bo@example.com",
      temperature: 0,
    },
  };
}

describe("cassette(): the mode from TOLLGATE_CASSETTES", () => {
  const script = () => scriptedProvider([{ text: "live answer" }]);
  const run = (provider: Provider) => new AgentLoop({ provider, tools: [] }).run("Hi");
  let path: string;
  beforeEach(() => {
    path = fresh();
  });

  it("unset: a missing cassette fails and says how to record; an existing one replays", async () => {
    vi.stubEnv("TOLLGATE_CASSETTES", undefined);
    expect(() => cassette(script(), path)).toThrow(
      `cassette ${path} does not exist; record it once by running this test with TOLLGATE_CASSETTES=record (or auto), then commit it`,
    );
    await run(recordProvider(script(), path));
    const live = scriptedProvider([]);
    expect((await run(cassette(live, path))).text).toBe("live answer");
    expect(live.requests).toHaveLength(0);
  });

  it("record always calls the real provider and rewrites the cassette", async () => {
    vi.stubEnv("TOLLGATE_CASSETTES", "record");
    await run(cassette(script(), path));
    await run(cassette(scriptedProvider([{ text: "second take" }]), path));
    expect(read(path).calls).toHaveLength(1);
    expect(JSON.stringify(read(path))).toContain("second take");
  });

  it("replay fails on a missing cassette, naming it", () => {
    vi.stubEnv("TOLLGATE_CASSETTES", "replay");
    expect(() => cassette(script(), path)).toThrow(new RegExp(`cassette ${path} cannot be read`));
  });

  it("auto records when the file is missing, then replays", async () => {
    vi.stubEnv("TOLLGATE_CASSETTES", "auto");
    const first = script();
    await run(cassette(first, path));
    expect(first.requests).toHaveLength(1);
    expect(existsSync(path)).toBe(true);
    const second = script();
    expect((await run(cassette(second, path))).text).toBe("live answer");
    expect(second.requests).toHaveLength(0);
  });

  it("an unknown value fails closed; the mode option wins over the variable", async () => {
    vi.stubEnv("TOLLGATE_CASSETTES", "recrod");
    expect(() => cassette(script(), path)).toThrow(
      'TOLLGATE_CASSETTES must be "record", "replay" or "auto", got "recrod"',
    );
    const live = script();
    await run(cassette(live, path, { mode: "record" }));
    expect(live.requests).toHaveLength(1);
    expect(() => cassette(script(), path, { mode: "live" as never })).toThrow(/`mode` must be/);
  });
});

describe("cassette() replays only for the model it was recorded with", () => {
  it("another model (or provider) is a CassetteError naming both", async () => {
    const path = fresh();
    const recorded = scriptedProvider([{ text: "hi" }], { name: "openai", model: "stub-1" });
    await new AgentLoop({ provider: cassette(recorded, path, { mode: "record" }) }).run("hello");
    const same = scriptedProvider([], { name: "openai", model: "stub-1" });
    const result = await new AgentLoop({ provider: cassette(same, path, { mode: "replay" }) }).run(
      "hello",
    );
    expect(result.text).toBe("hi");
    const other = scriptedProvider([], { name: "openai", model: "stub-2" });
    expect(() => cassette(other, path, { mode: "replay" })).toThrow(
      /was recorded with openai stub-1, and this test replays it for openai stub-2; re-record it with TOLLGATE_CASSETTES=record/,
    );
  });
});
