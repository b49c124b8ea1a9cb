/**
 * Property: whatever the browser sends — approvals, refusals, forged ids, edited args, replays
 * of earlier requests — a tool that needs approval runs only for an approval the server issued
 * for that call in that pause, at most once, and a refused request runs nothing. The oracle is
 * the test's own list of the approvals it sent in requests that should have been taken.
 */
import fc from "fast-check";
import { AgentLoop, memoryRunStore, tool } from "tollgate";
import { scriptedProvider } from "tollgate/testing";
import { chatResponse } from "tollgate/ui";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { answer, assistantFrom, chatPost, chunksOf, userSays } from "../support/chat-posts.js";

type Tamper = "none" | "forge" | "args" | "replay";
const steps = fc.array(fc.array(fc.boolean(), { minLength: 1, maxLength: 3 }), {
  minLength: 1,
  maxLength: 3,
});
const rounds = fc.array(
  fc.record({
    approve: fc.array(fc.boolean(), { minLength: 3, maxLength: 3 }),
    tamper: fc.constantFrom<Tamper>("none", "none", "forge", "args", "replay"),
  }),
  { minLength: 1, maxLength: 8 },
);

describe("the chat's gate holds whatever the browser sends", () => {
  it("property: only issued, untampered approvals run, each once", async () => {
    await fc.assert(
      fc.asyncProperty(steps, rounds, async (script, browserRounds) => {
        // Each step calls `act` (needs approval) or `note` (runs at once), per the script's booleans.
        const ran: string[] = [];
        const store = memoryRunStore();
        const turns = script.map((calls, step) => ({
          toolCalls: calls.map((needsApproval, i) => ({
            name: needsApproval ? "act" : "note",
            args: { n: step * 10 + i },
          })),
        }));
        const loop = new AgentLoop({
          provider: scriptedProvider([...turns, { text: "done" }]),
          store,
          tools: [
            tool({
              name: "act",
              description: "Acts",
              input: z.object({ n: z.number() }),
              needsApproval: true,
              execute: ({ n }) => {
                ran.push(`act ${n}`);
                return n;
              },
            }),
            tool({
              name: "note",
              description: "Notes",
              input: z.object({ n: z.number() }),
              execute: ({ n }) => n,
            }),
          ],
        });
        const user = userSays("go");
        const post = (message?: unknown) =>
          chatResponse(chatPost({ id: "p", messages: message ? [user, message] : [user] }), {
            loop,
            store,
          });
        const expected: string[] = [];
        const taken: unknown[] = [];
        let browser = assistantFrom(await chunksOf(await post()));
        for (const round of browserRounds) {
          const waiting = browser.parts.filter((part) => part.state === "approval-requested");
          if (waiting.length === 0) break;
          let sent = browser;
          waiting.forEach((part, i) => {
            sent = answer(sent, part.toolCallId as string, round.approve[i] ?? true, "no");
          });
          const target = sent.parts.find((part) => part.toolCallId === waiting[0]!.toolCallId)!;
          if (round.tamper === "forge") (target.approval as { id: string }).id = "approval_forged";
          if (round.tamper === "args") target.input = { n: -1 };
          if (round.tamper === "replay" && taken.length > 0) sent = taken[0] as typeof sent;
          const response = await post(sent);
          const before = [...ran];
          if (round.tamper !== "none" && !(round.tamper === "replay" && taken.length === 0)) {
            expect(response.status).toBe(409);
            await response.text();
            expect(ran).toEqual(before);
            continue;
          }
          expect(response.status).toBe(200);
          taken.push(sent);
          waiting.forEach((part, i) => {
            if (round.approve[i] ?? true) expected.push(`act ${(part.input as { n: number }).n}`);
          });
          browser = assistantFrom(await chunksOf(response), sent);
        }
        expect(ran).toEqual(expected);
        expect(new Set(ran).size).toBe(ran.length);
      }),
      { numRuns: 60 },
    );
  });
});
