/**
 * The tollgate demo: an agent tidies a sandbox folder, and every file operation it asks for
 * passes the gate before it may run.
 *
 *   npm run demo                          the built-in scripted model (no network)
 *   OPENAI_API_KEY=sk-... npm run demo    a real OpenAI-compatible endpoint; OPENAI_BASE_URL
 *                                         for another server (Ollama, vLLM, ...), OPENAI_MODEL
 *                                         for another model (default gpt-4.1-mini)
 *
 * Two pre-call hooks guard the paths: the first makes relative paths absolute inside the
 * sandbox, the second blocks anything outside it. The policy asks you (y/n) before a delete,
 * and denies by itself when stdin is not a terminal, so the demo never hangs in CI.
 */
import { mkdtemp, readdir, readFile, rm, stat, unlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { isAbsolute, join, relative, resolve } from "node:path";
import { createInterface } from "node:readline/promises";
import type { LoopPolicy, PreToolCallHook, Provider, RunResult } from "tollgate";
import { AgentLoop, tool } from "tollgate";
import type { ScriptedTurn } from "tollgate/testing";
import { scriptedProvider } from "tollgate/testing";
import { z } from "zod";

/** What hooks and policy get from the loop: where the sandbox is. */
interface Deps {
  sandbox: string;
}

// ── Tools ──────────────────────────────────────────────────────────────────────────────────
// They trust the gate: by the time one runs, its `path` is absolute and inside the sandbox.

const path = z.string().describe("A path inside the sandbox, e.g. notes.txt");

const listFiles = tool({
  name: "list_files",
  description: "List the files of a folder in the sandbox, with their sizes in bytes",
  input: z.object({ path: path.default(".") }),
  execute: async ({ path }) => {
    const names = await readdir(path);
    return Promise.all(
      names.map(async (name) => ({ name, bytes: (await stat(join(path, name))).size })),
    );
  },
});

const readFileTool = tool({
  name: "read_file",
  description: "Read a text file",
  input: z.object({ path }),
  execute: ({ path }) => readFile(path, "utf8"),
});

const writeFileTool = tool({
  name: "write_file",
  description: "Create or replace a text file",
  input: z.object({ path, content: z.string() }),
  execute: async ({ path, content }) => {
    await writeFile(path, content);
    return `wrote ${Buffer.byteLength(content)} bytes`;
  },
});

const deleteFile = tool({
  name: "delete_file",
  description: "Delete a file",
  input: z.object({ path }),
  needsApproval: true, // the policy below asks a human for every tool that says this
  execute: async ({ path }) => {
    await unlink(path);
    return "deleted";
  },
});

// ── The gate: two hooks and a policy ────────────────────────────────────────────────────────

// Every tool here takes a `path`, and the args a hook sees are complete: `list_files {}` arrives
// as `{ path: "." }`, the schema's default filled in, so what the hooks judge is what runs.

/** Hook 0: a relative path becomes an absolute path inside the sandbox. */
const resolvePaths: PreToolCallHook<Deps> = ({ args, deps }) => {
  const { path } = args as { path: string };
  if (isAbsolute(path)) return;
  return { args: { ...(args as object), path: resolve(deps.sandbox, path) } };
};

/** Hook 1: a path outside the sandbox is blocked; the model gets the message as an error. */
const stayInSandbox: PreToolCallHook<Deps> = ({ args, deps }) => {
  const { path } = args as { path: string };
  const inside = relative(deps.sandbox, path);
  if (inside.startsWith("..") || isAbsolute(inside)) {
    return { block: `${path} is outside the sandbox; only paths inside it are allowed` };
  }
};

/** The policy: a human decides every call whose tool needs approval; the rest are allowed. */
const policy: LoopPolicy<Deps> = {
  async decideToolCall({ call, needsApproval, deps }) {
    if (!needsApproval) return undefined; // the default: ALLOW
    const target = relative(deps.sandbox, (call.args as { path: string }).path);
    const answer = await askHuman(`${call.name} ${target}`);
    return answer.yes
      ? { decision: "ALLOW", reason: answer.reason }
      : { decision: "DENY", reason: answer.reason };
  },
};

/** Asks y/n on the terminal. Without one (CI, a pipe) nobody can answer, so it says no. */
async function askHuman(action: string): Promise<{ yes: boolean; reason: string }> {
  if (!process.stdin.isTTY) {
    endLine();
    console.log(`  ? approve ${action}? [y/N] stdin is not a terminal: denied automatically`);
    return { yes: false, reason: "auto-denied, stdin is not a TTY" };
  }
  endLine();
  const terminal = createInterface({ input: process.stdin, output: process.stdout });
  try {
    const answer = await terminal.question(`  ? approve ${action}? [y/N] `);
    return /^y(es)?$/i.test(answer.trim())
      ? { yes: true, reason: "approved by a human" }
      : { yes: false, reason: "a human said no" };
  } catch {
    console.log(); // the question was cut short (Ctrl+D): that is a no
    return { yes: false, reason: "no answer" };
  } finally {
    terminal.close();
  }
}

// ── The model ───────────────────────────────────────────────────────────────────────────────

const TASK =
  "Tidy up the sandbox: list its files, read notes.txt and write a two-line summary of it to " +
  "summary.txt. Compare with /etc/hosts and ../../etc/passwd. Then delete old-draft.txt, " +
  "which is obsolete, and tell me what you did.";

/** What the scripted model does, one turn per step: every path through the gate once. */
const SCRIPT: ScriptedTurn[] = [
  { text: "Let me see what is in the sandbox.", toolCalls: [{ name: "list_files", args: {} }] },
  { text: "I'll read the notes.", toolCalls: [{ name: "read_file", args: { path: "notes.txt" } }] },
  {
    text: "Now the summary.",
    toolCalls: [
      {
        name: "write_file",
        args: { path: "summary.txt", content: "Ship v0.1 on Friday.\nAna owns the docs." },
      },
    ],
  },
  {
    text: "Comparing with the system files.",
    toolCalls: [
      { name: "read_file", args: { path: "../../etc/passwd" } },
      { name: "read_file", args: { path: "/etc/hosts" } },
    ],
  },
  {
    text: "old-draft.txt is obsolete, so I'll delete it.",
    toolCalls: [{ name: "delete_file", args: { path: "old-draft.txt" } }],
  },
  // The last turn reads the delete's result from the request, as a real model would.
  (request) => {
    const last = request.messages.at(-1);
    const deleted = last?.role === "tool" && last.results.every((result) => !result.isError);
    return {
      text:
        "Done. I listed the files, read notes.txt and wrote summary.txt. I could not read files " +
        `outside the sandbox. ${deleted ? "old-draft.txt is deleted." : "old-draft.txt is still there: the delete was not approved."}`,
    };
  },
];

/** The one place the model is chosen: a real endpoint when one is configured, else the script. */
async function chooseProvider(): Promise<Provider> {
  const { OPENAI_API_KEY, OPENAI_BASE_URL, OPENAI_MODEL } = process.env;
  if (OPENAI_API_KEY || OPENAI_BASE_URL) {
    const { openAIChat } = await import("tollgate/openai"); // loaded only when it is used
    return openAIChat({
      apiKey: OPENAI_API_KEY,
      baseURL: OPENAI_BASE_URL,
      model: OPENAI_MODEL ?? "gpt-4.1-mini",
    });
  }
  return scriptedProvider(SCRIPT, { stream: true });
}

// ── Running it ──────────────────────────────────────────────────────────────────────────────

/** False while a line of streamed model text is open. */
let atLineStart = true;

/** Runs the agent in a fresh sandbox, printing what the gate decides as it happens. */
async function main(): Promise<void> {
  const sandbox = await mkdtemp(join(tmpdir(), "tollgate-demo-"));
  await writeFile(
    join(sandbox, "notes.txt"),
    "Meeting notes\n- ship v0.1 on Friday\n- Ana: docs\n",
  );
  await writeFile(join(sandbox, "todo.txt"), "- review the gate\n- write the README\n");
  await writeFile(join(sandbox, "old-draft.txt"), "an obsolete draft\n");
  try {
    const provider = await chooseProvider();
    console.log(`tollgate demo · model ${provider.name}/${provider.model} · sandbox ${sandbox}\n`);
    const loop = new AgentLoop<Deps>({
      provider,
      tools: [listFiles, readFileTool, writeFileTool, deleteFile],
      deps: { sandbox },
      instructions: "You manage the files of a sandbox folder. Use paths relative to it.",
      preToolCall: [resolvePaths, stayInSandbox],
      policy,
      maxSteps: 10,
    });
    const result = await runPrinting(loop, TASK);
    printSummary(result);
  } finally {
    await rm(sandbox, { recursive: true, force: true });
    console.log(`\nremoved the sandbox ${sandbox}`);
  }
}

/** Streams one run: the model's text as it comes, each gate decision, each tool result. */
async function runPrinting(loop: AgentLoop<Deps>, task: string): Promise<RunResult> {
  console.log(`user: ${task}\n`);
  const rawArgs = new Map<string, string>();
  const ran = new Set<string>(); // ids of the calls the gate allowed
  for await (const event of loop.stream(task)) {
    switch (event.type) {
      case "step-start":
        endLine();
        break;
      case "text-delta":
        process.stdout.write(atLineStart ? `model: ${event.text}` : event.text);
        atLineStart = false;
        break;
      case "tool-call":
        rawArgs.set(event.toolCallId, event.rawArgs);
        break;
      case "tool-decision": {
        endLine();
        if (event.verdict === "allow") ran.add(event.toolCallId);
        const by = event.reason ? `${event.by}: ${event.reason}` : event.by;
        const call = `${event.toolName} ${brief(rawArgs.get(event.toolCallId), 38)}`;
        console.log(`  gate  ${call.padEnd(50)} ${event.verdict.toUpperCase()} (by ${by})`);
        break;
      }
      case "tool-result": {
        const ms = ran.has(event.toolCallId) ? `  ${event.ms.toFixed(0)} ms` : "";
        console.log(`  ${event.isError ? "error" : "ok   "} ${brief(event.output, 60)}${ms}`);
        break;
      }
      case "run-finish":
        endLine();
        return event.result;
    }
  }
  throw new Error("the run ended without a run-finish event");
}

/** One row per tool call of the run, from the `RunResult`'s step records. */
function printSummary(result: RunResult): void {
  const rows = [["#", "call", "verdict", "by", "result", "ms"]];
  for (const step of result.steps) {
    for (const call of step.calls) {
      rows.push([
        String(rows.length),
        `${call.toolName} ${brief(call.rawArgs, 34)}`,
        call.verdict,
        call.by,
        call.result
          ? `${call.result.isError ? "error" : "ok"}: ${brief(call.result.output, 28)}`
          : "-",
        call.ms === undefined ? "-" : call.ms.toFixed(1),
      ]);
    }
  }
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  console.log(`\nstatus ${result.status} after ${result.steps.length} steps\n`);
  for (const row of rows) {
    console.log(
      row
        .map((cell, i) => cell.padEnd(widths[i]!))
        .join("  ")
        .trimEnd(),
    );
  }
  const { inputTokens, outputTokens, totalTokens, unknown } = result.usage;
  console.log(`\nusage: ${inputTokens} input + ${outputTokens} output = ${totalTokens} tokens`);
  if (unknown) console.log("(the model reported no token counts for some calls)");
  else if (totalTokens === 0) console.log("(the scripted model spends no tokens)");
}

/** A value on one short line: strings as they are, anything else as JSON. */
function brief(value: unknown, max: number): string {
  const text = (typeof value === "string" ? value : String(JSON.stringify(value))).replace(
    /\s+/g,
    " ",
  );
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** Ends a line of streamed model text before anything else is printed. */
function endLine(): void {
  if (!atLineStart) process.stdout.write("\n");
  atLineStart = true;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
