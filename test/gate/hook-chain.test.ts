import {
  AgentLoop,
  type AgentLoopOptions,
  HookError,
  type LoopEventOf,
  type PreToolCallHook,
  tool,
} from "tollgate";
import { scriptedProvider } from "tollgate/testing";
import { describe, expect, it } from "vitest";
import { z } from "zod";

/**
 * The pre-call hook chain (`src/gate/hook-chain.ts`), through a loop: hooks run in array
 * order, a stop or block ends the chain, a rewrite is what the next hook and the policy see, a
 * throw is `HookError` naming the hook. Every hook answers at once or later; both paths of
 * `dispatch` are walked.
 */

const executed: unknown[] = [];
const send = tool({
  name: "send",
  input: z.object({ to: z.string() }),
  execute: (args) => {
    executed.push(args);
    return "sent";
  },
});

/** One step calling `send` with `{ to: "alice" }`, then a final answer. */
async function oneCall(options: Partial<AgentLoopOptions>) {
  executed.length = 0;
  const decisions: LoopEventOf<"tool-decision">[] = [];
  const loop = new AgentLoop({
    provider: scriptedProvider([
      { toolCalls: [{ name: "send", args: { to: "alice" } }] },
      { text: "done" },
    ]),
    tools: [send],
    ...options,
    onEvent: (event) => {
      if (event.type === "tool-decision") decisions.push(event);
    },
  });
  const result = await loop.run("go");
  return { result, decisions };
}

/** A hook that notes its name and the args it saw, then answers `answer` (at once, or later). */
function noting(
  seen: string[],
  name: string,
  answer: ReturnType<PreToolCallHook> = undefined,
  later = false,
): PreToolCallHook {
  return (call) => {
    seen.push(`${name} ${JSON.stringify(call.args)}`);
    return later ? Promise.resolve(answer) : answer;
  };
}

describe("the pre-call hook chain", () => {
  for (const later of [false, true]) {
    const how = later ? "answering later" : "answering at once";

    it(`runs the hooks in array order, each once (${how})`, async () => {
      const seen: string[] = [];
      const hooks = ["a", "b", "c"].map((name) => noting(seen, name, undefined, later));
      const { decisions } = await oneCall({ preToolCall: hooks });
      expect(seen).toEqual(['a {"to":"alice"}', 'b {"to":"alice"}', 'c {"to":"alice"}']);
      expect(decisions.map((d) => [d.verdict, d.by])).toEqual([["allow", "default"]]);
      expect(executed).toEqual([{ to: "alice" }]);
    });

    it(`a stop ends the chain: the hooks after it and the policy are not asked (${how})`, async () => {
      const seen: string[] = [];
      const asked: string[] = [];
      const { result, decisions } = await oneCall({
        preToolCall: [
          noting(seen, "a", undefined, later),
          noting(seen, "b", { stop: true, stopReason: "enough" }, later),
          noting(seen, "c", undefined, later),
        ],
        policy: { decideToolCall: ({ call }) => void asked.push(call.name) },
      });
      expect(seen).toEqual(['a {"to":"alice"}', 'b {"to":"alice"}']);
      expect(asked).toEqual([]);
      expect(result.status).toBe("stopped");
      expect(decisions.map((d) => [d.verdict, d.by])).toEqual([["stop", "hook:1"]]);
      expect(executed).toEqual([]);
    });

    it(`a block ends the chain: the hooks after it, the policy and the tool are not asked (${how})`, async () => {
      const seen: string[] = [];
      const asked: string[] = [];
      const { decisions } = await oneCall({
        preToolCall: [
          noting(seen, "a", { block: "not to alice" }, later),
          noting(seen, "b", undefined, later),
        ],
        policy: { decideToolCall: ({ call }) => void asked.push(call.name) },
      });
      expect(seen).toEqual(['a {"to":"alice"}']);
      expect(asked).toEqual([]);
      expect(decisions.map((d) => [d.verdict, d.by])).toEqual([["block", "hook:0"]]);
      expect(executed).toEqual([]);
    });

    it(`rewritten args are what the next hook, the policy and the tool see (${how})`, async () => {
      const seen: string[] = [];
      const policySaw: unknown[] = [];
      const { decisions } = await oneCall({
        preToolCall: [
          noting(seen, "a", { args: { to: "bob" } }, later),
          noting(seen, "b", undefined, later),
        ],
        policy: {
          decideToolCall: ({ call }) => {
            policySaw.push(call.args);
            return "ALLOW";
          },
        },
      });
      expect(seen).toEqual(['a {"to":"alice"}', 'b {"to":"bob"}']);
      expect(policySaw).toEqual([{ to: "bob" }]);
      expect(decisions[0]).toMatchObject({ verdict: "allow", by: "policy" });
      expect(executed).toEqual([{ to: "bob" }]);
    });

    it(`a hook that throws rejects the run with HookError naming preToolCall[i]; the hooks after it are not run (${how})`, async () => {
      const seen: string[] = [];
      const boom = new Error("boom");
      const throwing: PreToolCallHook = () => {
        if (later) return Promise.reject(boom);
        throw boom;
      };
      const run = oneCall({
        preToolCall: [noting(seen, "a", undefined, later), throwing, noting(seen, "c")],
      });
      const error = await run.then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(error).toBeInstanceOf(HookError);
      expect(error).toMatchObject({
        hookIndex: 1,
        toolName: "send",
        cause: boom,
        message: expect.stringContaining("preToolCall[1]"),
      });
      expect((error as HookError).message).toMatch(
        /^pre-call hook 1 \(preToolCall\[1\]\) threw on tool send: boom/,
      );
      expect(seen).toEqual(['a {"to":"alice"}']);
      expect(executed).toEqual([]);
    });
  }
});
