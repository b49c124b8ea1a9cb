/**
 * The runtime smoke checks: the built package, imported as a user imports it ("tollgate",
 * "tollgate/testing", "tollgate/openai", "tollgate/event-stream", "tollgate/ui"), exercised through its public API. Plain JavaScript
 * with no Node built-ins, so the same file runs under Node, Bun, Deno and workerd.
 *
 * Every check is counted; `runChecks` reports how many ran and which failed, and a section that
 * throws counts as a failure (never a silent pass). The caller (`smoke.mjs`, `worker.mjs`)
 * prints the summary and turns failures into a non-zero exit.
 */
import {
  AgentLoop,
  HookError,
  memoryRunStore,
  ResumeError,
  toEventStream,
  tool,
  toolset,
} from "tollgate";
import { EventStreamError, readEventStream } from "tollgate/event-stream";
import { openAIChat } from "tollgate/openai";
import { scriptedProvider } from "tollgate/testing";
import { chatResponse } from "tollgate/ui";
import { z } from "zod";
import * as z3 from "zod/v3";

/** The checks every runtime runs without a replay server; the adapter section adds more. */
export const CORE_CHECKS = 35;
/** The adapter section's checks (run only when a replay server URL is given). */
export const ADAPTER_CHECKS = 9;

/** Which runtime this is, with its version. */
export function runtimeName() {
  const g = globalThis;
  if (g.Bun) return `bun ${g.Bun.version}`;
  if (g.Deno) return `deno ${g.Deno.version.deno}`;
  if (g.navigator?.userAgent === "Cloudflare-Workers") return "workerd";
  if (g.process?.versions?.node) return `node ${g.process.versions.node}`;
  return "unknown runtime";
}

/** A canonical JSON form (sorted keys), so equal values compare equal. */
function canonical(value) {
  return JSON.stringify(value, (_key, inner) =>
    inner && typeof inner === "object" && !Array.isArray(inner)
      ? Object.fromEntries(Object.entries(inner).sort(([a], [b]) => (a < b ? -1 : 1)))
      : inner,
  );
}

/** Counts checks and collects failures. */
function recorder() {
  const failures = [];
  let count = 0;
  return {
    failures,
    get count() {
      return count;
    },
    /** `actual` must deep-equal `expected`. */
    equal(label, actual, expected) {
      count++;
      if (canonical(actual) !== canonical(expected)) {
        failures.push(`${label}: expected ${canonical(expected)}, got ${canonical(actual)}`);
      }
    },
    /** `condition` must be true. */
    ok(label, condition, detail = "") {
      count++;
      if (condition !== true) failures.push(`${label}${detail ? `: ${detail}` : ""}`);
    },
    /** `promise` must reject with an instance of `type`. */
    async rejects(label, promise, type) {
      count++;
      try {
        await promise;
        failures.push(`${label}: resolved, expected ${type.name}`);
      } catch (error) {
        if (!(error instanceof type)) {
          failures.push(`${label}: expected ${type.name}, got ${error?.name}: ${error?.message}`);
        }
      }
    },
  };
}

const weatherInput = z.object({ city: z.string().min(1) });

/** Tools: a zod 4 schema turned into JSON Schema, a Toolset, args typed and validated. */
function toolsSection(check) {
  const weather = tool({
    name: "get_weather",
    description: "Current weather for a city",
    input: weatherInput,
    execute: ({ city }) => ({ city, tempC: 21 }),
  });
  check.equal("tools: zod 4 schema becomes JSON Schema", weather.inputSchema.properties, {
    city: { type: "string", minLength: 1 },
  });
  check.equal("tools: required keys", weather.inputSchema.required, ["city"]);
  const set = toolset([weather]);
  check.equal("tools: toolset names", set.names(), ["get_weather"]);
  check.ok("tools: tool is frozen", Object.isFrozen(weather));
  zod3Check(check);
}

/**
 * A zod 3 schema loads zod-to-json-schema synchronously on first use: it works where the
 * runtime has `process.getBuiltinModule` (Node, Bun, Deno), and is a TypeError saying what to
 * write instead where it has not (workerd).
 */
function zod3Check(check) {
  const build = () =>
    tool({ name: "v3", input: z3.object({ city: z3.string() }), execute: () => "" });
  if (typeof globalThis.process?.getBuiltinModule === "function") {
    check.equal("tools: zod 3 schema becomes JSON Schema", build().inputSchema.properties, {
      city: { type: "string" },
    });
    return;
  }
  try {
    build();
    check.ok("tools: zod 3 without a synchronous require is refused", false, "it was accepted");
  } catch (error) {
    check.ok(
      "tools: zod 3 without a synchronous require is refused, saying what to write",
      error instanceof TypeError &&
        /cannot load synchronously.*"zod\/v4".*jsonSchema\(/.test(error.message),
      String(error?.message),
    );
  }
}

/** Hooks: one blocks a tool, one rewrites another's args; streamed through `loop.stream()`. */
async function hooksSection(check) {
  const ran = [];
  const weather = tool({
    name: "get_weather",
    description: "Current weather for a city",
    input: weatherInput,
    execute: ({ city }) => {
      ran.push(`get_weather ${city}`);
      return { city, tempC: 21 };
    },
  });
  const remove = tool({
    name: "delete_file",
    description: "Delete a file",
    input: z.object({ path: z.string() }),
    execute: ({ path }) => {
      ran.push(`delete_file ${path}`);
      return "deleted";
    },
  });
  const provider = scriptedProvider(
    [
      {
        toolCalls: [
          { name: "get_weather", args: { city: "oslo" }, id: "call_w" },
          { name: "delete_file", args: { path: "/etc/passwd" }, id: "call_d" },
        ],
      },
      { text: "It is 21 °C in Oslo." },
    ],
    { stream: true },
  );
  const loop = new AgentLoop({
    provider,
    tools: [weather, remove],
    preToolCall: [
      ({ name }) =>
        name === "delete_file" ? { block: "deleting files is not allowed" } : undefined,
      ({ name, args }) =>
        name === "get_weather" ? { args: { city: args.city.toUpperCase() } } : undefined,
    ],
  });
  const events = [];
  for await (const event of loop.stream("Weather in Oslo, and clean up")) events.push(event);
  const finish = events.at(-1);
  check.equal("hooks: run completes", finish?.type === "run-finish" && finish.status, "completed");
  check.equal("hooks: only the rewritten call ran", ran, ["get_weather OSLO"]);
  const decisions = events
    .filter((event) => event.type === "tool-decision")
    .map((event) => [event.toolName, event.verdict, event.by]);
  check.equal("hooks: decisions", decisions, [
    ["get_weather", "allow", "default"],
    ["delete_file", "block", "hook:0"],
  ]);
  const results = provider.requests[1]?.messages.at(-1)?.results ?? [];
  check.equal(
    "hooks: the model reads the blocked result",
    results.map((r) => [r.toolCallId, r.isError, r.output]),
    [
      ["call_w", false, { city: "OSLO", tempC: 21 }],
      ["call_d", true, "deleting files is not allowed"],
    ],
  );
  check.ok(
    "hooks: text streamed in deltas",
    events.filter((event) => event.type === "text-delta").length > 1,
  );
  const bad = new AgentLoop({
    provider: scriptedProvider([{ toolCalls: [{ name: "get_weather", args: { city: "x" } }] }]),
    tools: [weather],
    preToolCall: [() => ({ args: { city: 42 } })],
  });
  await check.rejects("hooks: args that fail the schema reject", bad.run("x"), HookError);
  check.equal("hooks: nothing ran after the bad rewrite", ran.length, 1);
}

/** Policy + pause and resume: NEEDS_APPROVAL for `pay`, state as JSON, approve with a digest. */
async function approvalSection(check) {
  const paid = [];
  const makeTools = () => [
    tool({
      name: "get_weather",
      description: "Current weather for a city",
      input: weatherInput,
      execute: ({ city }) => ({ city, tempC: 21 }),
    }),
    tool({
      name: "pay",
      description: "Pay an invoice",
      input: z.object({ invoice: z.string(), amountEur: z.number().positive() }),
      execute: ({ invoice, amountEur }) => {
        paid.push(`${invoice} ${amountEur}`);
        return { paid: invoice };
      },
    }),
  ];
  const policy = {
    decideToolCall: ({ call }) => (call.name === "pay" ? "NEEDS_APPROVAL" : "ALLOW"),
  };
  const first = new AgentLoop({
    provider: scriptedProvider([
      {
        toolCalls: [
          { name: "get_weather", args: { city: "Oslo" } },
          { name: "pay", args: { invoice: "INV-7", amountEur: 250 } },
        ],
      },
    ]),
    tools: makeTools(),
    policy,
  });
  const paused = await first.run("Check the weather and pay INV-7");
  check.equal("policy: run pauses", paused.status, "needs_approval");
  const pending = paused.pending ?? [];
  check.equal(
    "policy: one pending call",
    pending.map((call) => [call.toolName, call.args]),
    [["pay", { invoice: "INV-7", amountEur: 250 }]],
  );
  const digest = pending[0]?.digest;
  check.ok("policy: pending call has a SHA-256 digest", /^[0-9a-f]{64}$/.test(String(digest)));
  check.equal("policy: nothing paid before approval", paid, []);
  const allowed = paused.steps[0]?.calls.find((call) => call.toolName === "get_weather");
  check.equal("policy: the allowed call still ran", allowed?.result?.output, {
    city: "Oslo",
    tempC: 21,
  });

  const saved = JSON.stringify(paused.state);
  // By value with digests and no store to claim the state: the loop opts in to replays
  // (across instances); within one loop a second resume is still refused.
  const second = () =>
    new AgentLoop({
      provider: scriptedProvider([{ text: "Paid INV-7." }]),
      tools: makeTools(),
      policy,
      allowReplay: true,
    });
  const id = pending[0]?.toolCallId;
  const loop = second();
  await check.rejects(
    "resume: a wrong digest is refused",
    loop.resume(JSON.parse(saved), { [id]: { approve: true, digest: "0".repeat(64) } }),
    ResumeError,
  );
  await check.rejects(
    "resume: no digest, no signature, no trust is refused",
    loop.resume(JSON.parse(saved), { [id]: { approve: true } }),
    ResumeError,
  );
  check.equal("resume: refusals ran nothing", paid, []);
  const resumed = await loop.resume(JSON.parse(saved), { [id]: { approve: true, digest } });
  check.equal(
    "resume: run completes",
    [resumed.status, resumed.text],
    ["completed", "Paid INV-7."],
  );
  check.equal("resume: the approved call ran once", paid, ["INV-7 250"]);
  await check.rejects(
    "resume: the same state twice is refused",
    loop.resume(JSON.parse(saved), { [id]: { approve: true, digest } }),
    ResumeError,
  );
  check.equal("resume: still paid once", paid, ["INV-7 250"]);
  check.equal(
    "resume: transcript has one result per call",
    resumed.messages
      .filter((m) => m.role === "tool")
      .flatMap((m) => m.results.map((r) => r.toolName)),
    ["get_weather", "pay"],
  );
  check.ok("resume: state is JSON", typeof JSON.parse(JSON.stringify(resumed.state)) === "object");
}

/**
 * The OpenAI Chat adapter against the replay server (`baseURL`), which answers two recorded
 * streams: two parallel tool calls (openai-python f82268…bin), then a long text
 * (vercel openai-text.chunks.txt).
 */
async function adapterSection(check, replayUrl) {
  const asked = [];
  const loop = new AgentLoop({
    provider: openAIChat({ model: "gpt-4o", baseURL: `${replayUrl}/v1`, apiKey: "sk-test" }),
    tools: [
      tool({
        name: "GetWeatherArgs",
        description: "Weather for a city",
        input: z.object({ city: z.string(), country: z.string(), units: z.enum(["c", "f"]) }),
        execute: (args) => {
          asked.push(args);
          return "12 °C, rain";
        },
      }),
      tool({
        name: "get_stock_price",
        description: "Price of a stock",
        input: z.object({ ticker: z.string(), exchange: z.string() }),
        execute: (args) => {
          asked.push(args);
          return "227.79 USD";
        },
      }),
    ],
  });
  const result = await loop.run("weather in Edinburgh and the AAPL price");
  check.equal("adapter: run completes", result.status, "completed");
  check.equal("adapter: steps", result.steps.length, 2);
  check.equal("adapter: both tools ran with the streamed args", asked, [
    { city: "Edinburgh", country: "GB", units: "c" },
    { ticker: "AAPL", exchange: "NASDAQ" },
  ]);
  check.equal(
    "adapter: call ids from the wire",
    result.steps[0]?.calls.map((call) => call.toolCallId),
    ["call_JMW1whyEaYG438VE1OIflxA2", "call_DNYTawLBoN8fj3KN6qU9N1Ou"],
  );
  check.equal("adapter: first finish reason", result.steps[0]?.response.finishReason, "tool-calls");
  check.ok(
    "adapter: text of the second stream",
    result.text.startsWith("**Holiday Name:**") && result.text.length > 1000,
    JSON.stringify(result.text.slice(0, 40)),
  );
  check.equal("adapter: usage summed over both streams", result.usage.inputTokens, 149 + 16);
  check.equal("adapter: output tokens", result.usage.outputTokens, 60 + 300);
  check.equal("adapter: last finish reason", result.finishReason, "stop");
}

/**
 * Events over HTTP: a run's events as the runtime's own `Response` of server-sent events
 * (`toEventStream`), read back through its body with `readEventStream`, as a browser would.
 */
async function eventStreamSection(check) {
  const loop = new AgentLoop({
    provider: scriptedProvider([
      { toolCalls: [{ name: "get_weather", args: { city: "Oslo" } }] },
      { text: "Sunny in Oslo." },
    ]),
    tools: [
      tool({
        name: "get_weather",
        input: weatherInput,
        execute: ({ city }) => ({ city, tempC: 21 }),
      }),
    ],
  });
  const response = toEventStream(loop.stream("Weather in Oslo?"));
  check.ok("events over HTTP: a Response", response instanceof Response);
  check.equal(
    "events over HTTP: content type",
    response.headers.get("content-type"),
    "text/event-stream; charset=utf-8",
  );
  const types = [];
  let text = "";
  for await (const event of readEventStream(response)) {
    types.push(event.type);
    if (event.type === "text-delta") text += event.text;
  }
  check.equal("events over HTTP: the run's text arrives", text, "Sunny in Oslo.");
  check.ok(
    "events over HTTP: a tool result and the run's end arrive, in order",
    types.indexOf("tool-result") > -1 && types.at(-1) === "run-finish",
    types.join(","),
  );
  const cut = new Response("data: {}\n\n", { headers: { "content-type": "text/event-stream" } });
  await check.rejects(
    "events over HTTP: a stream cut before its end frame is an EventStreamError",
    (async () => {
      for await (const _ of readEventStream(cut)) {
      }
    })(),
    EventStreamError,
  );
}

/**
 * A chat UI (`tollgate/ui`): useChat's POST answered with the AI SDK's UI message stream; the
 * pause's approval, sent back in the chat's message, resumes the stored run once.
 */
async function chatSection(check) {
  let refunds = 0;
  const store = memoryRunStore();
  const loop = new AgentLoop({
    provider: scriptedProvider([
      { toolCalls: [{ name: "refund", args: { order: 7 }, id: "call_r" }] },
      { text: "Refunded." },
    ]),
    store,
    tools: [
      tool({
        name: "refund",
        input: z.object({ order: z.number() }),
        needsApproval: true,
        execute: () => ++refunds,
      }),
    ],
  });
  const user = { id: "u", role: "user", parts: [{ type: "text", text: "Refund order 7" }] };
  const post = (messages) =>
    chatResponse(
      new Request("http://127.0.0.1/api/chat", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ id: "chat", messages, trigger: "submit-message" }),
      }),
      { loop, store },
    );
  const chunksOf = async (response) =>
    (await response.text())
      .split("\n\n")
      .filter((line) => line.startsWith("data: {"))
      .map((line) => JSON.parse(line.slice(6)));
  const first = await post([user]);
  check.equal(
    "chat UI: the UI message stream header",
    first.headers.get("x-vercel-ai-ui-message-stream"),
    "v1",
  );
  const request = (await chunksOf(first)).find((chunk) => chunk.type === "tool-approval-request");
  check.ok("chat UI: the pause is an approval request", request?.toolCallId === "call_r");
  const part = {
    type: "tool-refund",
    toolCallId: "call_r",
    state: "approval-responded",
    input: { order: 7 },
    approval: { id: request?.approvalId, approved: true },
  };
  const answer = [user, { id: "a", role: "assistant", parts: [{ type: "step-start" }, part] }];
  const second = await chunksOf(await post(answer));
  check.ok(
    "chat UI: the approved call runs once and the run finishes",
    refunds === 1 && second.at(-1)?.type === "finish",
    JSON.stringify(second.at(-1)),
  );
  check.equal("chat UI: a replayed approval is refused", (await post(answer)).status, 409);
}

/**
 * Runs every section; with `replayUrl`, the adapter section too. Resolves with the runtime's
 * name, how many checks ran, how many were expected, and the failures (never rejects).
 */
export async function runChecks(replayUrl) {
  const check = recorder();
  const sections = [
    ["tools", toolsSection],
    ["hooks", hooksSection],
    ["approval", approvalSection],
    ["events over HTTP", eventStreamSection],
    ["chat UI", chatSection],
  ];
  if (replayUrl) sections.push(["adapter", (c) => adapterSection(c, replayUrl)]);
  for (const [name, section] of sections) {
    try {
      await section(check);
    } catch (error) {
      check.failures.push(`${name} section threw: ${error?.stack ?? error}`);
    }
  }
  const expected = CORE_CHECKS + (replayUrl ? ADAPTER_CHECKS : 0);
  if (check.count !== expected) {
    check.failures.push(`ran ${check.count} checks, expected ${expected}`);
  }
  return {
    runtime: runtimeName(),
    checks: check.count,
    expected,
    adapter: Boolean(replayUrl),
    failures: check.failures,
  };
}

/** The one-line summary of a `runChecks` report. */
export function summary(report) {
  const parts = report.adapter
    ? "tools, hooks, policy, pause/resume, events over HTTP, chat UI, openAIChat"
    : "tools, hooks, policy, pause/resume, events over HTTP, chat UI";
  const verdict = report.failures.length === 0 ? "ok" : `FAILED (${report.failures.length})`;
  return `runtime smoke ${verdict}: ${report.runtime}, ${report.checks}/${report.expected} checks (${parts})`;
}
