/**
 * Every file in examples/ runs here, so no example can rot: each is started as its own process
 * (stdin closed, no OpenAI variables, so the scripted model is used), all at once, and must exit
 * 0 and print its key lines. Examples that export `main()` are also run in-process so the value
 * they return can be checked. The README's code snippets must be excerpts of the examples.
 */
import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import type { RunResult } from "tollgate";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { aiSdkSkipReason } from "../support/ai-sdk-peers.js";
import { docPages } from "../support/doc-pages.js";
import { serviceUrl } from "../support/services.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const examplesDir = join(root, "examples");
const exampleFiles = readdirSync(examplesDir)
  .filter((file) => file.endsWith(".ts") && !file.endsWith(".d.ts"))
  .sort();
/** The examples run here; a `*.test.ts` example is a test file, which vitest runs with the suite (vitest.config.ts). */
const examples = exampleFiles.filter((file) => !file.endsWith(".test.ts"));
/** ai-sdk-model.ts loads the AI SDK, a bench peer (bench/peers.ts): without it, it is skipped and says so. */
const skipAiSdk = aiSdkSkipReason("examples/ai-sdk-model.ts") !== "";
/** Examples that need a server (test/support/services.ts): without it, each is skipped and says why. */
const exampleServices: Record<string, "redis" | "postgres"> = {
  "postgres-store.ts": "postgres",
  "redis-store.ts": "redis",
};
/**
 * Example folders are not run here: each holds a server that keeps listening (not a one-shot
 * example) and its own `*.test.ts`, which vitest runs with the suite. Their `.ts` files may be
 * linked from the README (`examples/<folder>/<file>.ts`), so snippets are checked against them.
 */
const exampleFolders = readdirSync(examplesDir, { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && entry.name !== "cassettes")
  .map((entry) => entry.name)
  .sort();
const folderFiles = exampleFolders.flatMap((folder) =>
  readdirSync(join(examplesDir, folder))
    .filter((file) => file.endsWith(".ts") && !file.endsWith(".test.ts"))
    .map((file) => `${folder}/${file}`),
);
for (const folder of exampleFolders) {
  console.warn(
    `test/repo/examples.test.ts: examples/${folder}/ is not run as a one-shot example (its entry keeps running, as a server or workers do); its own *.test.ts tests it`,
  );
}
const runnable = examples.filter((file) => {
  if (skipAiSdk && file === "ai-sdk-model.ts") return false;
  const service = exampleServices[file];
  return service === undefined || serviceUrl(service, `examples/${file}`) !== undefined;
});

/** Lines an example must print, beyond exiting 0. Examples not listed must print something. */
const expectedOutput: Record<string, RegExp[]> = {
  "approvals.ts": [
    /^repaired: allow \{"to":"bob@example\.com"\} \(repaired from \{'to': 'bob@example\.com'\}\)$/m,
    /^remembered: ana, bob, completed$/m,
  ],
  "repair-with-model.ts": [
    /^hook sees \{"to":"bob@example\.com","body":"hi"\}$/m,
    /^allow \{"to":"bob@example\.com","body":"hi"\} \(repaired from \{"to":"bob","body":"hi"\}\); 2 steps$/m,
  ],
  "demo.ts": [
    /list_files \{\}\s+ALLOW \(by default\)/,
    // `{}` is judged, and runs, as the default `{ path: "." }` resolved into the sandbox.
    /ok +\[\{"name":"(notes|old-draft|todo)\.txt","bytes":\d+\},\{"name":"(notes|old-draft|todo)\.txt"/,
    /write_file \{"path":"summary\.txt".*ALLOW \(by default\)/,
    /read_file \{"path":"\.\.\/\.\.\/etc\/passwd"\}\s+BLOCK \(by hook:1: .* is outside the sandbox/,
    /read_file \{"path":"\/etc\/hosts"\}\s+BLOCK \(by hook:1: .* is outside the sandbox/,
    /error \/etc\/passwd is outside the sandbox/,
    /stdin is not a terminal: denied automatically/,
    /delete_file \{"path":"old-draft\.txt"\}\s+DENY \(by policy: auto-denied, stdin is not a TTY\)/,
    /^\d+\s+delete_file .*\s+deny\s+policy\s+error: the call to delete_file/m,
    /old-draft\.txt is still there/,
    /status completed after 6 steps/,
    /^usage: \d+ input \+ \d+ output = \d+ tokens$/m,
  ],
  "testing-decisions.ts": [
    /^0 +\| read_note +\| \{"path":"todo\.txt"\} \| allow +\| policy \|$/m,
    /^0 +\| delete_note \| \{"path":"todo\.txt"\} \| needs-approval \| policy \| \(waits for approval\)$/m,
    /^property held: no delete ran unapproved in 100 random scripts$/m,
  ],
  "quickstart.ts": [/^It is 21 °C in Oslo\.$/m, /get_weather \{"city":"Oslo"\}: allow by default/],
  "tools.ts": [
    /add \(maxRetries 1\): \{"a":\{"type":"number"\},"b":\{"type":"number"\}\}/,
    /error add: "invalid arguments for tool add: b: /,
    /error find_user: "no user 42; the ids are 1, 2, 3"/,
    /ok {4}find_user: \{"id":2,"name":"Bo"\}/,
  ],
  "mcp-filesystem.ts": [
    /^destructive: fs_write_file$/m,
    /^paused: fs_write_file \{"path":".*todo\.txt","content":"buy oat milk"\} \(MCP hints: destructive\)$/m,
    /^completed: Updated the list\.$/m,
    /^todo\.txt now reads: buy oat milk$/m,
  ],
  "toolset.ts": [
    /^true a tool named "read_note" is already in the toolset/m,
    /^true no tool named "send_email" in the toolset/m,
    /delete_note: unavailable → "tool delete_note is not available in this step/,
    /note still there: true/,
  ],
  "hooks.ts": [
    /search \{"query":"tollgate docs"\}: result by hook:2/,
    /fetch_url .*: block by hook:3 → "only https:\/\/ URLs may be fetched"/,
    /send_email \{"to":"ana@example\.com".*: allow by hook:4/,
    /send_email \{"to":"bo@elsewhere\.org".*: needs-approval by hook:4 → \(pending\)/,
    /waiting for a human: send_email \{"to":"bo@elsewhere\.org","body":"Hi Bo"\}/,
    /stopReason: the model tried to send an API key/,
  ],
  "client-side-tool.ts": [
    // The browser is handed the args completed with the schema's default, as every judge sees them.
    /^paused: needs_results; the browser runs get_location \{"highAccuracy":false\}$/m,
    /^the browser answered get_location: \{"result":\{"latitude":59\.91,"longitude":10\.75,"accuracyM":30\}\}$/m,
    /^completed: It is 21 °C and clear where you are\.$/m,
    /^the browser answered get_location: \{"error":"the user denied access to their location"\}$/m,
  ],
  "output-guard.ts": [
    /the model read from fetch_page: "Oslo: 21 °C, light wind\. Contact: ops key \[redacted\]\."/,
    /post-call: fetch_page stop by post:1/,
    /error "the output of fetch_page was withheld: the run was stopped \(prompt injection in a fetched page\)"/,
    /stopReason: prompt injection in a fetched page/,
  ],
  "cedar-policy.ts": [
    /^refund: allow \(permitted by Cedar policy staff-refunds\)$/m,
    /^delete_account: deny \(forbidden by Cedar policy no-deletes\)$/m,
    /^needs_approval: Cedar policy big-refunds-ask \(@ask\) permits refund/m,
    /^bob refunds 900: DENY \(no Cedar policy permits refund for User::"bob"\)$/m,
  ],
  "policy.ts": [
    /step 0: shown \[search,read_page,final_answer\], callable \[search\]/,
    /read_page: unavailable by default/,
    /read_page: deny by policy \(other\.example\.net is not on the allowlist\)/,
    /status: ended_by_tool, ended by final_answer/,
  ],
  "rules-policy.ts": [
    /decision: 'DENY',\s+rule: 'no-secrets'/,
    /^read_file: deny \(secrets stay local\)$/m,
    /^refund: needs-approval \(a refund over 100 EUR needs a human\)$/m,
    /^status: needs_approval, pending: refund$/m,
    /^refunded: 40$/m,
  ],
  "resume-stream.ts": [
    /^first submit: 200$/m,
    /^second submit: 409 run mail-1 is still running in this process/m,
    /^first submit's run: completed$/m,
    /^after it finished: 409 nothing to resume: run mail-1 ended with status "completed"$/m,
  ],
  "chat-route.ts": [
    /^first response: start start-step .*tool-input-available finish-step tool-approval-request finish$/m,
    /^refund output: refunded order 7$/m,
    /^assistant: Done: order 7 is refunded\.$/m,
    /^replayed approval: 409 .*nothing ran$/m,
  ],
  "event-stream.ts": [
    /^get_time: allow$/m,
    /^run-finish: completed$/m,
    /^streamed text: It is 12:00 in Lima\.$/m,
  ],
  "events.ts": [
    /get_time: allow by default/,
    /a step-finish listener failed: Error: oops/,
    /run-finish: completed/,
    /text deltas: Chec\|king\|/,
  ],
  "testing.ts": [/^5 checks passed$/m],
  "postgres-store.ts": [
    /^worker 1: needs_approval$/m,
    /^inbox: invoice-INV-9 waits: pay \{"invoice":"INV-9","amountEur":400\}$/m,
    /^worker 2: completed: Invoice INV-9 is paid\.$/m,
    /^pruned finished runs: 1$/m,
  ],
  "redis-store.ts": [
    /^worker 1: needs_approval$/m,
    /^inbox: refund-A-17 waits: refund \{"order":"A-17","amountEur":80\}$/m,
    /^worker 2: completed: Order A-17 is refunded\.$/m,
    /^finished state expires in about 24 h$/m,
  ],
  "store-conformance.ts": [
    /^refund-A-1 waits: refund \{"order":"A-1","amountEur":30\}\nrefund-B-2 waits: refund \{"order":"B-2","amountEur":90\}$/m,
    /^deleted refund-B-2: true$/m,
    /^still pending: refund-A-1 waits: refund \{"order":"A-1","amountEur":30\}$/m,
    /^memoryRunStore: \d+ checks passed, 0 failed$/m,
  ],
  "testing-auto.ts": [
    /^Called 1 tool\(s\):\n- book_table: ok — table for \d, (inside|terrace)$/m,
    /^same seed, same args: true$/m,
  ],
  "testing-cassettes.ts": [
    /^recorded: It is 21 °C in Oslo\.$/m,
    /^the cassette holds the key: false$/m,
    /^replayed: It is 21 °C in Oslo\.$/m,
    /^drift: messages\[0\]\.content: expected "Weather in Oslo\?", got "Weather in Bergen\?"$/m,
    /^guarded: openAIChat: a real model request while noNetwork\(\) is on$/m,
  ],
  "providers.ts": [
    /^get_weather: allow$/m,
    /^local\/stub-1: It is 21 °C in Oslo\.$/m,
    /^completed; 2 HTTP requests$/m,
  ],
  "custom-provider.ts": [
    /^2 \+ 3 = 5\.$/m,
    /completed after 2 steps, 35 tokens/,
    /^streamed: 2 \|\+ \|3 \|= \|5\. \(completed\)$/m,
  ],
  "compaction.ts": [
    /^step 0: sent 1 messages$/m,
    /^step 4: sent 5 messages$/m,
    /^status stopped_by_condition by stepCountIs\(5\)$/m,
    /^transcript: 11 messages$/m,
    /^step 4 record: messages 5, settings \{"maxOutputTokens":200\}$/m,
  ],
  "limits.ts": [
    /^limit_reached: toolCalls \(limit 4, used 4\)$/m,
    /^ {2}\{"query":"pydantic-ai"\} → 3 results for "pydantic-ai"$/m,
    /^ {2}\{"query":"openai agents"\} → not run: limit reached \(toolCalls 4\)$/m,
    /^limit_reached: \{"name":"totalTokens","value":1000,"used":1000\}$/m,
    /^paused: 1 of 2 tool calls used$/m,
    /^resumed: limit_reached, \{"name":"toolCalls","value":2,"used":2\}$/m,
  ],
  "getting-started.ts": [
    /^process \d+ ran refund-[0-9a-f]{8}: needs_approval$/m,
    /^ {2}waits for approval: refund \{"order":"A-17","amountEur":80\}$/m,
  ],
  "at-a-glance.ts": [
    /^needs_approval$/m,
    /^pay \{ invoice: 'INV-7', amountEur: 250 \}$/m,
    /^completed INV-7 is paid; TEST-1 was refused\.$/m,
    /^\[ 'INV-7 250' \]$/m,
  ],
  "approval-across-processes.ts": [
    /paused: pay \{"invoice":"INV-7","amountEur":250\} needs approval/,
    /resumed in process \d+: completed: Invoice INV-7 is paid\./,
    /resumed again: the store holds another state of run invoice-INV-7/,
    /payments made: 1 \(INV-7 250\)/,
  ],
  "sub-agents.ts": [
    /paused: write_file \{"path":"notes\.md",.*\} \(in delegate-1\) needs approval/,
    /^writer › write_file: needs-approval by tool$/m,
    /^writer › write_file: allow by approval$/m,
    /^completed: Research done; the writer saved notes\.md\.$/m,
    /^usage, both agents: 600 input \+ 150 output tokens$/m,
  ],
  "handoffs.ts": [
    /^handoff at step 1: triage → billing$/m,
    /^paused on billing: refund \{"order":"A-17","amountEur":80\} waits$/m,
    /^billing's model read: user, assistant$/m,
    /^completed on billing: Refunded 80 EUR for order A-17\.$/m,
    /^steps by: triage, triage, billing, billing$/m,
    /^resumed again: the store holds another state of run refund-A-17 than the one given/m,
    /^refunds made: 1 \(A-17 80 EUR\)$/m,
  ],
  "ai-sdk-model.ts": [
    /^get_weather \{"city":"Oslo"\}: allow by policy$/m,
    /^the model was sent: \[\{"type":"tool-result","toolCallId":"call_1","toolName":"get_weather","output":\{"type":"json","value":\{"city":"Oslo","tempC":21\}\}\}\]$/m,
    /^mock\.chat\/mock-1: It is 21 °C in Oslo\.$/m,
    /^usage: 110 input \+ 21 output tokens$/m,
  ],
  "tracing.ts": [
    /^invoke_agent assistant .*status=completed$/m,
    /^ {2}execute_tool clock {2}verdict=allow by=default$/m,
    /^ {4}invoke_agent clock .*status=completed$/m,
    /^ {6}execute_tool get_time {2}verdict=allow by=default$/m,
    /^ {2}execute_tool delete_file {2}verdict=block by=hook:0 reason=no deletes here$/m,
  ],
};

/** Checks of the value `main()` returns, for examples run in-process. */
const expectedValue: Record<string, (value: any) => void> = {
  "approvals.ts": (value) =>
    expect(value).toEqual({
      repaired: "allow {\"to\":\"bob@example.com\"} (repaired from {'to': 'bob@example.com'})",
      remembered: ["ana", "bob", "completed"],
    }),
  "repair-with-model.ts": (value) =>
    expect(value).toBe(
      'allow {"to":"bob@example.com","body":"hi"} (repaired from {"to":"bob","body":"hi"}); 2 steps',
    ),
  "quickstart.ts": (result: RunResult) => {
    expect(result.status).toBe("completed");
    expect(result.text).toBe("It is 21 °C in Oslo.");
    expect(result.steps[0]!.calls[0]!.result?.output).toEqual({ city: "Oslo", tempC: 21 });
  },
  "tools.ts": (result: RunResult) => {
    expect(result.status).toBe("completed");
    const first = result.steps[0]!.calls;
    expect(first.map((call) => [call.toolName, call.verdict, call.result?.isError])).toEqual([
      ["find_user", "allow", true], // ran, threw RetryError
      ["add", "invalid", true],
      ["shout", "allow", false],
    ]);
    expect(result.steps[1]!.calls.map((call) => call.result?.output)).toEqual([
      { id: 2, name: "Bo" },
      5,
    ]);
  },
  "toolset.ts": (result: RunResult) => {
    expect(result.steps[0]!.tools).toEqual(["read_note"]);
    expect(result.steps[0]!.calls.map((call) => call.verdict)).toEqual(["allow", "unavailable"]);
  },
  "hooks.ts": ({ paused, stopped }: { paused: RunResult; stopped: RunResult }) => {
    expect(paused.status).toBe("needs_approval");
    expect(paused.pending).toMatchObject([
      {
        toolCallId: "call_1_0",
        toolName: "send_email",
        args: { to: "bo@elsewhere.org", body: "Hi Bo" },
      },
    ]);
    expect(paused.steps[0]!.calls.map((call) => `${call.verdict} ${call.by}`)).toEqual([
      "result hook:2",
      "allow default",
      "block hook:3",
      "allow hook:4",
    ]);
    expect(stopped.status).toBe("stopped");
    expect(stopped.stopReason).toBe("the model tried to send an API key");
  },
  "rules-policy.ts": (result: RunResult) => {
    expect(result.status).toBe("needs_approval");
    expect(result.steps[0]!.calls.map((call) => call.verdict)).toEqual([
      "allow",
      "deny",
      "allow",
      "needs-approval",
    ]);
  },
  "policy.ts": (result: RunResult) => {
    expect(result.status).toBe("ended_by_tool");
    expect(result.endedBy?.name).toBe("final_answer");
    expect(result.steps.map((step) => step.callable)).toEqual([
      ["search"],
      ["read_page", "final_answer"],
      ["read_page", "final_answer"],
    ]);
    expect(result.steps[1]!.calls.map((call) => call.verdict)).toEqual(["deny", "allow"]);
  },
  "events.ts": ({ counts, streamed }: { counts: Record<string, number>; streamed: string }) => {
    expect(counts).toMatchObject({ "run-start": 1, "tool-decision": 1, "run-finish": 1 });
    expect(streamed.replaceAll("|", "")).toBe("Checking.It is 12:00 in Lima.");
  },
  "testing.ts": (passed: string[]) => {
    expect(passed).toHaveLength(5);
  },
  "sub-agents.ts": ({ paused, done }: { paused: RunResult; done: RunResult }) => {
    expect(paused.status).toBe("needs_approval");
    expect(paused.pending).toMatchObject([
      { toolCallId: "write-1", toolName: "write_file", subRun: { path: ["delegate-1"] } },
    ]);
    expect(done.status).toBe("completed");
    expect(done.steps[1]!.calls[0]!.result?.output).toBe("Saved the notes to notes.md.");
  },
  "handoffs.ts": (value: { paused: RunResult; done: RunResult; again: string }) => {
    const { paused, done, again } = value;
    const byAgent = (result: RunResult) => result.steps.map((step) => step.agent);
    // Triage looked up and handed over; billing's refund waits, and the state says billing's.
    expect(paused.status).toBe("needs_approval");
    expect([paused.agent, paused.state.agent]).toEqual(["billing", "billing"]);
    expect(byAgent(paused)).toEqual(["triage", "triage", "billing"]);
    const verdicts = paused.steps.map((step) => step.calls.map((call) => call.verdict));
    expect(verdicts).toEqual([["allow"], ["allow"], ["needs-approval"]]);
    expect(paused.steps[1]!.calls[0]!.result).toMatchObject({
      toolName: "transfer_to_billing",
      output: { agent: "billing" },
      isError: false,
    });
    expect(paused.pending).toMatchObject([
      { toolName: "refund", args: { order: "A-17", amountEur: 80 } },
    ]);
    // Resumed on billing, by a fresh triage loop; billing's transcript has none of triage's calls.
    expect(done.status).toBe("completed");
    expect(done.agent).toBe("billing");
    expect(byAgent(done)).toEqual(["triage", "triage", "billing", "billing"]);
    expect(done.steps[2]!.calls[0]!.result?.output).toEqual({ refunded: "A-17", amountEur: 80 });
    const called = done.messages.flatMap((message) =>
      message.role === "assistant"
        ? message.parts.flatMap((part) => (part.type === "tool-call" ? [part.name] : []))
        : [],
    );
    expect(called).toEqual(["refund"]);
    expect(again).toMatch(/^the store holds another state of run refund-A-17/);
  },
  "tracing.ts": (spans: ReadableSpan[]) => {
    expect(spans.map((span) => span.name).sort()).toEqual([
      "chat acme-large",
      "chat acme-large",
      "chat acme-mini",
      "chat acme-mini",
      "execute_tool clock",
      "execute_tool delete_file",
      "execute_tool get_time",
      "invoke_agent assistant",
      "invoke_agent clock",
    ]);
    expect(new Set(spans.map((span) => span.spanContext().traceId)).size).toBe(1);
  },
  "client-side-tool.ts": ({ granted, denied }: Record<string, RunResult>) => {
    expect(granted!.status).toBe("completed");
    // The browser's answer is the tool's result in the transcript, and the model read it.
    expect(granted!.steps[0]!.calls[0]!.result).toEqual({
      toolCallId: "loc-1",
      toolName: "get_location",
      output: { latitude: 59.91, longitude: 10.75, accuracyM: 30 },
      isError: false,
    });
    expect(granted!.steps[1]!.calls[0]!.args).toEqual({ latitude: 59.91, longitude: 10.75 });
    expect(denied!.steps[0]!.calls[0]!.result).toMatchObject({
      output: "the user denied access to their location",
      isError: true,
    });
  },
  "output-guard.ts": ({ redacted, stopped }: Record<string, RunResult>) => {
    expect(redacted!.status).toBe("completed");
    expect(JSON.stringify(redacted)).not.toContain("sk-live-");
    expect(stopped!.status).toBe("stopped");
    expect(JSON.stringify(stopped)).not.toMatch(/ignore previous instructions/);
    expect(stopped!.steps).toHaveLength(1);
  },
  "compaction.ts": (result: RunResult) => {
    expect(result.status).toBe("stopped_by_condition");
    expect(result.stoppedBy).toEqual({ index: 0, name: "stepCountIs(5)" });
    expect(result.steps.map((step) => step.messages)).toEqual([1, 3, 5, 5, 5]);
    // The transcript keeps every message, each call with its one result.
    expect(result.messages).toHaveLength(11);
  },
  "limits.ts": ({ capped, tokens, resumed }: Record<string, RunResult>) => {
    expect(capped!.limit).toEqual({ name: "toolCalls", value: 4, used: 4 });
    expect(capped!.state.callCounts).toEqual({ modelCalls: 2, toolCalls: 4 });
    expect(tokens!.limit).toEqual({ name: "totalTokens", value: 1000, used: 1000 });
    expect(tokens!.state.limits).toEqual({ toolCalls: 4, totalTokens: 1000 });
    expect(resumed!.limit).toEqual({ name: "toolCalls", value: 2, used: 2 });
    expect(resumed!.steps.map((step) => step.calls.map((call) => call.result?.isError))).toEqual([
      [false],
      [false],
      [true, true],
    ]);
  },
};

interface ExampleRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

const TIMEOUT_MS = 60_000;

/** Runs at most `size` of the tasks given to it at a time, in the order given. */
function pool(size: number): <T>(task: () => Promise<T>) => Promise<T> {
  let running = 0;
  const waiting: (() => void)[] = [];
  return async (task) => {
    if (running >= size) await new Promise<void>((resolve) => waiting.push(resolve));
    running++;
    try {
      return await task();
    } finally {
      running--;
      waiting.shift()?.();
    }
  };
}

/** Runs one example the way a user would (`tsx examples/<file>`), with stdin closed. */
function runExample(file: string, extraEnv: Record<string, string> = {}): Promise<ExampleRun> {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: "1" };
  for (const name of ["OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_MODEL"]) delete env[name];
  Object.assign(env, extraEnv);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", join("examples", file)], {
      cwd: root,
      env,
      stdio: ["ignore", "pipe", "pipe"],
      timeout: TIMEOUT_MS,
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    child.on("error", reject);
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

/** The body of a Chat Completions request, as far as the demo test reads it. */
interface ChatRequest {
  model: string;
  tools: { function: { name: string } }[];
}

/**
 * A local stand-in for an OpenAI-compatible server: the first request gets a streamed tool
 * call (an escape attempt), every later one a streamed text answer.
 */
async function fakeOpenAIServer(): Promise<{
  url: string;
  requests: ChatRequest[];
  close(): void;
}> {
  const requests: ChatRequest[] = [];
  const server = createServer((request, response) => {
    let body = "";
    request.setEncoding("utf8").on("data", (chunk: string) => {
      body += chunk;
    });
    request.on("end", () => {
      requests.push(JSON.parse(body) as ChatRequest);
      const event = (delta: object, finishReason: string | null = null) => {
        const choices = [{ index: 0, delta, finish_reason: finishReason }];
        return `data: ${JSON.stringify({ id: "chatcmpl-1", object: "chat.completion.chunk", choices })}\n\n`;
      };
      const escapeAttempt = {
        index: 0,
        id: "call_1",
        type: "function",
        function: { name: "read_file", arguments: '{"path":"/etc/hosts"}' },
      };
      const events =
        requests.length === 1
          ? [event({ tool_calls: [escapeAttempt] }), event({}, "tool_calls")]
          : [event({ content: "I may not read /etc/hosts." }), event({}, "stop")];
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.end(`${events.join("")}data: [DONE]\n\n`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, requests, close: () => server.close() };
}

/** README.md and the guides in docs/: the pages whose snippets are excerpts of the examples. */
const pages = docPages(root);

/**
 * The `ts` snippets of a page, each with the example file linked in the line before it (or
 * before the snippet it follows): `(examples/x.ts)` from the README, `(../examples/x.ts)` from
 * docs/. Every README snippet names its example; a guide's snippets from the first link on.
 */
function pageSnippets(page: string): { page: string; file: string; code: string }[] {
  const markdown = readFileSync(join(root, page), "utf8");
  const snippets: { page: string; file: string; code: string }[] = [];
  let file: string | undefined;
  for (const [index, text] of markdown.split(/^```/m).entries()) {
    if (index % 2 === 0) {
      file = /\((?:\.\.\/)?examples\/((?:[\w.-]+\/)*[\w.-]+\.tsx?)\)[^(]*$/.exec(text)?.[1] ?? file;
    } else if (text.startsWith("ts\n") || text.startsWith("tsx\n")) {
      // A guide's snippet that names no example (a recipe, a type) is only compiled (doc-snippets).
      if (file === undefined && page !== "README.md") continue;
      const code = text.slice(text.indexOf("\n") + 1);
      snippets.push({ page, file: file ?? "(no example linked)", code });
    }
  }
  return snippets;
}

describe("README and guides", () => {
  const snippets = pages.flatMap(pageSnippets);

  it("show snippets from the examples", () => {
    expect(snippets.length).toBeGreaterThan(6);
    expect(pageSnippets("README.md").length).toBeGreaterThan(0);
  });

  // A snippet is an excerpt: its lines appear in the example in the same order (indentation
  // and skipped lines aside), so the README cannot drift from code that runs.
  it.each(
    snippets.map((snippet, index) => [index, snippet.page, snippet.file, snippet.code] as const),
  )("snippet %i of %s is an excerpt of %s", (_, _page, file, code) => {
    const page = file.endsWith(".tsx") && existsSync(join(examplesDir, file)) ? [file] : [];
    expect([...exampleFiles, ...folderFiles, ...page]).toContain(file);
    const source = readFileSync(join(examplesDir, file), "utf8")
      .split("\n")
      .map((line) => line.trim());
    let at = 0;
    for (const line of code.split("\n").map((text) => text.trim())) {
      if (line === "") continue;
      const found = source.indexOf(line, at);
      expect(found, `a snippet's line is not found in order in examples/${file}: ${line}`).not.toBe(
        -1,
      );
      at = found + 1;
    }
  });
});

describe("examples", () => {
  const runs = new Map<string, Promise<ExampleRun>>();
  beforeAll(() => {
    // A few at a time: forty tsx processes at once on two cores only wait on each other, and
    // each example's own timeout starts when it is spawned.
    const slot = pool(4);
    for (const file of runnable)
      runs.set(
        file,
        slot(() => runExample(file)),
      );
  });

  it("has every example listed above", () => {
    for (const file of Object.keys(expectedOutput)) expect(examples).toContain(file);
  });

  it.each(runnable)("%s runs and exits 0", { timeout: TIMEOUT_MS + 5_000 }, async (file) => {
    const { code, signal, stdout, stderr } = await runs.get(file)!;
    expect({ code, signal }, `${stdout}\n${stderr}`).toEqual({ code: 0, signal: null });
    const expected = expectedOutput[file];
    if (expected) expect(stderr).toBe(""); // ours print nothing there
    for (const line of expected ?? [/\S/]) expect(stdout).toMatch(line);
  });

  it("demo.ts removes its sandbox", async () => {
    const { stdout } = await runs.get("demo.ts")!;
    const sandbox = /removed the sandbox (\S+)/.exec(stdout)?.[1];
    expect(sandbox).toBeDefined();
    expect(existsSync(sandbox!)).toBe(false);
  });

  it("demo.ts uses an OpenAI-compatible endpoint when OPENAI_BASE_URL is set", {
    timeout: TIMEOUT_MS + 5_000,
  }, async () => {
    const server = await fakeOpenAIServer();
    try {
      const { code, stdout, stderr } = await runExample("demo.ts", {
        OPENAI_BASE_URL: `${server.url}/v1`,
        OPENAI_MODEL: "fake-model",
      });
      expect(code, `${stdout}\n${stderr}`).toBe(0);
      expect(stdout).toMatch(/model openai\/fake-model/);
      expect(stdout).toMatch(
        /read_file \{"path":"\/etc\/hosts"\}\s+BLOCK \(by hook:1: .* is outside the sandbox/,
      );
      expect(stdout).toMatch(/model: I may not read \/etc\/hosts\./);
      expect(server.requests.map((request) => request.model)).toEqual(["fake-model", "fake-model"]);
      expect(server.requests[0]!.tools.map((spec) => spec.function.name)).toEqual([
        "list_files",
        "read_file",
        "write_file",
        "delete_file",
      ]);
    } finally {
      server.close();
    }
  });

  it.each(Object.keys(expectedValue))("%s main() returns what it shows", async (file) => {
    const log = vi.spyOn(console, "log").mockImplementation(() => {});
    try {
      const example = await import(pathToFileURL(join(examplesDir, file)).href);
      expectedValue[file]!(await example.main());
    } finally {
      log.mockRestore();
    }
  });
});
