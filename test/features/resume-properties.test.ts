import fc from "fast-check";
import {
  AgentLoop,
  type ApprovalDecisions,
  type Message,
  memoryRunStore,
  type RunResult,
  type RunState,
  tool,
} from "tollgate";
import { functionProvider } from "tollgate/testing";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { runs } from "../support/runs.js";

const callArb = fc.record({
  name: fc.constantFrom("pay", "read", "missing"),
  amount: fc.integer({ min: -1, max: 3 }),
  approval: fc.constantFrom("ask", "allow", "deny"),
});
const scenarioArb = fc.record({
  steps: fc.array(fc.array(callArb, { minLength: 1, maxLength: 3 }), { maxLength: 4 }),
  decisions: fc.array(fc.constantFrom("approve", "deny", "edit"), { minLength: 12, maxLength: 12 }),
  replay: fc.boolean(),
  withStore: fc.boolean(),
  trust: fc.constantFrom("trustState", "digests", "signingKey"),
});

function expectInvariant(messages: Message[], paused: boolean) {
  messages.forEach((message, index) => {
    if (message.role !== "assistant") return;
    const ids = message.parts.flatMap((part) => (part.type === "tool-call" ? [part.id] : []));
    if (ids.length === 0 || (paused && index === messages.length - 1)) return;
    const next = messages[index + 1];
    expect(next?.role).toBe("tool");
    if (next?.role === "tool") expect(next.results.map((r) => r.toolCallId)).toEqual(ids);
  });
}

describe("resume properties", () => {
  it("for random scripts and decisions, every call runs at most once and the transcript invariant holds after every resume", async () => {
    await fc.assert(
      fc.asyncProperty(scenarioArb, async ({ steps, decisions, replay, withStore, trust }) => {
        const executed: string[] = [];
        const plan = new Map<string, (typeof steps)[number][number]>();
        const tools = [
          tool({
            name: "pay",
            input: z.object({ amount: z.number().min(0) }),
            maxRetries: 20,
            execute: ({ amount }, ctx) => {
              executed.push(ctx.toolCallId);
              return amount;
            },
          }),
          tool({
            name: "read",
            input: z.object({ amount: z.number() }),
            maxRetries: 20,
            execute: (_args, ctx) => {
              executed.push(ctx.toolCallId);
              return "read";
            },
          }),
        ];
        const provider = functionProvider((request) => {
          const step = request.messages.filter((m) => m.role === "assistant").length;
          const calls = steps[step];
          if (!calls) return { text: "end" };
          return {
            toolCalls: calls.map((call, i) => {
              const id = `s${step}c${i}`;
              plan.set(id, call);
              return { id, name: call.name, args: { amount: call.amount } };
            }),
          };
        });
        const store = withStore ? memoryRunStore() : undefined;
        const makeLoop = () =>
          new AgentLoop({
            provider,
            tools,
            maxSteps: 6,
            maxRetries: 20,
            ...(store ? { store } : {}),
            ...(trust === "trustState" ? { trustState: true } : {}),
            ...(trust === "signingKey" ? { signingKey: "k" } : {}),
            // By value without a store (digests or a key), a new loop per resume must opt in;
            // it is replayed across loops only with a store, below.
            ...(!store && trust !== "trustState" ? { allowReplay: true } : {}),
            policy: {
              decideToolCall: ({ call }) => {
                const approval = plan.get(call.id)?.approval;
                return approval === "ask"
                  ? "NEEDS_APPROVAL"
                  : approval === "deny"
                    ? "DENY"
                    : "ALLOW";
              },
            },
          });
        let result: RunResult = await makeLoop().run("go");
        let decision = 0;
        const seenStates: RunState[] = [];
        for (let round = 0; result.status === "needs_approval" && round < 10; round++) {
          expectInvariant(result.messages, true);
          const state: RunState = JSON.parse(JSON.stringify(result.state));
          seenStates.push(state);
          const chosen: ApprovalDecisions = {};
          for (const pending of result.pending ?? []) {
            const kind = decisions[decision++ % decisions.length];
            const digest = trust === "digests" ? { digest: pending.digest } : {};
            chosen[pending.toolCallId] =
              kind === "deny"
                ? { approve: false, reason: "random", ...digest }
                : kind === "edit"
                  ? { approve: true, args: { amount: 2 }, ...digest }
                  : { approve: true, digest: pending.digest };
          }
          const before = executed.length;
          result = await makeLoop().resume(state, chosen);
          if (replay) {
            const count = executed.length;
            const again = withStore ? makeLoop() : undefined;
            if (again)
              await expect(again.resume(state, chosen)).rejects.toThrow(
                /already resumed|holds another state/,
              );
            expect(executed.length).toBe(count);
          }
          expect(executed.length).toBeGreaterThanOrEqual(before);
        }
        expect(new Set(executed).size).toBe(executed.length);
        expectInvariant(result.messages, result.status === "needs_approval");
        for (const id of executed) expect(plan.has(id)).toBe(true);
      }),
      { numRuns: runs(150) },
    );
  });
});
