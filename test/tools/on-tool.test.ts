import {
  AgentLoop,
  type ApprovalDecisions,
  HookError,
  isCallTo,
  type Message,
  onTool,
  type ToolResult,
  tool,
} from "tollgate";
import { type ScriptedToolCall, scriptedProvider } from "tollgate/testing";
import { describe, expect, it } from "vitest";
import { z } from "zod";

const ran: string[] = [];
const readFile = tool({
  name: "read_file",
  input: z.object({ path: z.string() }),
  execute: ({ path }) => {
    ran.push(`read ${path}`);
    return `contents of ${path}`;
  },
});
const sendEmail = tool({
  name: "send_email",
  input: z.object({ to: z.string(), subject: z.string().default("(none)") }),
  needsApproval: true,
  execute: ({ to, subject }) => {
    ran.push(`send ${to}: ${subject}`);
    return "sent";
  },
});

const resultsOf = (messages: Message[]): ToolResult[] =>
  messages.flatMap((m) => (m.role === "tool" ? m.results : []));

async function runOnce(calls: ScriptedToolCall[], hooks: ReturnType<typeof onTool>[]) {
  ran.length = 0;
  const loop = new AgentLoop({
    provider: scriptedProvider([{ toolCalls: calls }, { text: "done" }]),
    tools: [readFile, sendEmail],
    preToolCall: hooks,
  });
  return loop.run("go");
}

describe("onTool", () => {
  it("runs its hook for calls to its tool only, and the hook's verdict applies to them", async () => {
    const seen: string[] = [];
    const noSecrets = onTool(readFile, ({ args, name }) => {
      seen.push(`${name} ${args.path}`);
      return args.path.startsWith("/etc/") ? { block: "off limits" } : undefined;
    });
    const result = await runOnce(
      [
        { name: "read_file", args: { path: "/etc/passwd" }, id: "a" },
        { name: "read_file", args: { path: "notes.txt" }, id: "b" },
        { name: "send_email", args: { to: "x@example.com" }, id: "c" },
      ],
      [noSecrets, onTool(sendEmail, () => ({ confirm: false }))],
    );
    expect(seen).toEqual(["read_file /etc/passwd", "read_file notes.txt"]);
    expect(ran).toEqual(["read notes.txt", "send x@example.com: (none)"]);
    expect(resultsOf(result.messages).map((r) => [r.toolCallId, r.output, r.isError])).toEqual([
      ["a", "off limits", true],
      ["b", "contents of notes.txt", false],
      ["c", "sent", false],
    ]);
  });

  it("has no opinion on other tools, even when its hook would block everything", async () => {
    const blockAll = onTool(sendEmail, () => ({ block: true }));
    const result = await runOnce([{ name: "read_file", args: { path: "a" } }], [blockAll]);
    expect(result.status).toBe("completed");
    expect(ran).toEqual(["read a"]);
  });

  it("passes typed rewritten args on, validated again against the schema", async () => {
    const redirect = onTool(sendEmail, ({ args }) => ({
      args: { ...args, to: "audit@example.com" },
      confirm: false,
    }));
    await runOnce(
      [{ name: "send_email", args: { to: "x@example.com", subject: "hi" } }],
      [redirect],
    );
    expect(ran).toEqual(["send audit@example.com: hi"]);
  });

  it("fails closed: a hook that throws, answers with a malformed verdict or is async and rejects rejects the run with HookError", async () => {
    const hooks = [
      onTool(readFile, () => {
        throw new Error("boom");
      }),
      onTool(readFile, () => ({ deny: true }) as never),
      onTool(readFile, async () => {
        throw new Error("later");
      }),
    ];
    for (const hook of hooks) {
      const run = runOnce([{ name: "read_file", args: { path: "a" } }], [hook]);
      await expect(run).rejects.toBeInstanceOf(HookError);
      expect(ran).toEqual([]);
    }
  });

  it("fails closed when the loop's tool of that name takes other args than the tool given to onTool", async () => {
    const otherReadFile = tool({
      name: "read_file",
      input: z.object({ file: z.string() }),
      execute: () => "x",
    });
    let called = false;
    const hook = onTool(readFile, () => {
      called = true;
    });
    const loop = new AgentLoop({
      provider: scriptedProvider([{ toolCalls: [{ name: "read_file", args: { file: "a" } }] }]),
      tools: [otherReadFile],
      preToolCall: [hook],
    });
    const run = loop.run("go");
    await expect(run).rejects.toBeInstanceOf(HookError);
    await expect(run).rejects.toThrow(/onTool\(read_file\): the call's args do not fit the schema/);
    expect(called).toBe(false);
  });

  it("refuses what is not a tool or not a hook, at once", () => {
    expect(() => onTool({ name: "x" } as never, () => undefined)).toThrow(
      "onTool(): the first argument must be a tool built with tool(), got an object",
    );
    expect(() => onTool(readFile, "block" as never)).toThrow(
      "onTool(read_file): the second argument must be a hook function, got a string",
    );
  });
});

describe("isCallTo", () => {
  it("tells calls to a tool apart by name, for policies and for pending approvals", async () => {
    ran.length = 0;
    const asked: string[] = [];
    const loop = new AgentLoop({
      provider: scriptedProvider([
        {
          toolCalls: [
            { name: "read_file", args: { path: "big.bin" }, id: "r" },
            { name: "send_email", args: { to: "boss@example.com" }, id: "s" },
          ],
        },
        { text: "done" },
      ]),
      tools: [readFile, sendEmail],
      trustState: true,
      policy: {
        decideToolCall: ({ call }) => {
          if (isCallTo(call, readFile)) asked.push(call.args.path);
          return isCallTo(call, readFile) && call.args.path.endsWith(".bin")
            ? "NEEDS_APPROVAL"
            : undefined;
        },
      },
    });
    const paused = await loop.run("go");
    expect(asked).toEqual(["big.bin"]);
    if (paused.status !== "needs_approval") throw new Error(`paused: ${paused.status}`);
    const decisions: ApprovalDecisions = {};
    for (const call of paused.pending) {
      if (isCallTo(call, sendEmail)) {
        decisions[call.toolCallId] = { approve: true, args: { ...call.args, subject: "edited" } };
      } else if (isCallTo(call, readFile)) {
        decisions[call.toolCallId] = { approve: false, reason: `not ${call.args.path}` };
      }
    }
    expect(Object.keys(decisions).sort()).toEqual(["r", "s"]);
    const done = await loop.resume(paused.state, decisions);
    expect(done.status).toBe("completed");
    expect(ran).toEqual(["send boss@example.com: edited"]);
    expect(isCallTo({ name: "read_file", args: {} }, sendEmail)).toBe(false);
  });
});
