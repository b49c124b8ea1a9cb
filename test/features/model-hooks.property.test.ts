import fc from "fast-check";
import {
  AgentLoop,
  type LoopEvent,
  type Message,
  ModelCallBlockedError,
  type ModelRequest,
  type PostModelCallHook,
  type PreModelCallHook,
  type StepRecord,
  tool,
} from "tollgate";
import { functionProvider } from "tollgate/testing";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { runs } from "../support/runs.js";

type PreVerdict = "none" | "messages" | "stop" | "block";
type PostVerdict = "none" | "text" | "stop" | "block";

/** One model call: what the model answers, and what each of two pre and two post hooks says. */
interface Turn {
  text: string;
  calls: number;
  pre: [PreVerdict, PreVerdict];
  post: [PostVerdict, PostVerdict];
}

const turn: fc.Arbitrary<Turn> = fc.record({
  text: fc.constantFrom("", "hello", "mail a@b.cc"),
  calls: fc.integer({ min: 0, max: 2 }),
  pre: fc.tuple(
    fc.constantFrom<PreVerdict>("none", "none", "messages", "stop", "block"),
    fc.constantFrom<PreVerdict>("none", "messages", "stop", "block"),
  ),
  post: fc.tuple(
    fc.constantFrom<PostVerdict>("none", "none", "text", "stop", "block"),
    fc.constantFrom<PostVerdict>("none", "text", "stop", "block"),
  ),
});

interface Given {
  phase: "request" | "response";
  by: string;
  verdict: string;
  /** The model call it was given on (0-based over the run). */
  call: number;
}

describe("model-side hooks (property)", () => {
  it("nothing blocked or stopped reaches the provider or the tools, the provider gets the hooks' final messages, and every verdict is recorded", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(turn, { minLength: 1, maxLength: 5 }),
        fc.boolean(),
        async (script, stream) => {
          // The oracle's own records: what the hooks decided, what should have been sent.
          const given: Given[] = [];
          const expectedSent: Message[][] = [];
          const stoppedCalls = new Set<number>(); // model calls a pre hook stopped or blocked
          const withheld = new Set<string>(); // tool call ids of responses a post hook stopped or blocked
          const executed: string[] = [];
          let preCall = -1;
          let postCall = -1;
          let chainMessages: readonly Message[] = [];

          const preHook =
            (i: 0 | 1): PreModelCallHook =>
            ({ messages }) => {
              if (i === 0) preCall++;
              const verdict = script[preCall]!.pre[i];
              if (i === 1) expect(messages).toEqual(chainMessages); // as hook 0 left them
              chainMessages = messages;
              if (verdict === "none") return i === 1 ? done(messages) : undefined;
              given.push({ phase: "request", by: `pre-model:${i}`, verdict, call: preCall });
              if (verdict === "stop" || verdict === "block") {
                stoppedCalls.add(preCall);
                return verdict === "stop" ? { stop: true } : { block: `b${preCall}` };
              }
              const next = [
                ...messages,
                { role: "user" as const, content: `marker ${preCall}.${i}` },
              ];
              chainMessages = next;
              if (i === 1) done(next);
              return { messages: next };
            };
          const done = (messages: readonly Message[]) => {
            expectedSent[preCall] = structuredClone([...messages]) as Message[];
            return undefined;
          };
          const postHook =
            (i: 0 | 1): PostModelCallHook =>
            ({ response }) => {
              if (i === 0) postCall++;
              const verdict = script[postCall]!.post[i];
              if (verdict === "none") return undefined;
              given.push({ phase: "response", by: `post-model:${i}`, verdict, call: postCall });
              if (verdict === "text") return { text: `${response.text}[${i}]` };
              for (const call of response.toolCalls) withheld.add(call.id);
              return verdict === "stop" ? { stop: true } : { block: true };
            };

          const requests: ModelRequest[] = [];
          let answered = 0;
          const provider = functionProvider(
            (request) => {
              requests.push(request);
              const { text, calls } = script[answered]!;
              const id = answered++;
              const last = answered === script.length;
              return {
                text,
                toolCalls: last
                  ? []
                  : Array.from({ length: calls }, (_, k) => ({
                      name: "probe",
                      args: { n: k },
                      id: `c${id}_${k}`,
                    })),
              };
            },
            { stream },
          );
          const probe = tool({
            name: "probe",
            input: z.object({ n: z.number() }),
            execute: (_args, { toolCallId }) => {
              executed.push(toolCallId);
              return "ok";
            },
          });
          const events: LoopEvent[] = [];
          const loop = new AgentLoop({
            provider,
            tools: [probe],
            maxSteps: script.length,
            preModelCall: [preHook(0), preHook(1)],
            postModelCall: [postHook(0), postHook(1)],
            onEvent: (event) => events.push(event),
          });
          let steps: StepRecord[];
          try {
            const result = await loop.run("start");
            steps = result.steps;
            // A run that ended without a block has a valid transcript: every call has its result.
            const calls = result.messages.flatMap((m) =>
              m.role === "assistant" ? m.parts.filter((p) => p.type === "tool-call") : [],
            );
            const results = result.messages.flatMap((m) => (m.role === "tool" ? m.results : []));
            expect(results.map((r) => r.toolCallId)).toEqual(calls.map((c) => c.id));
          } catch (error) {
            expect(error).toBeInstanceOf(ModelCallBlockedError);
            steps = events.flatMap((e) => (e.type === "step-finish" ? [e.record] : []));
          }

          // Nothing a pre hook stopped or blocked reached the provider; what did is the hooks' final messages.
          expect(requests).toHaveLength(preCall + 1 - stoppedCalls.size);
          expect(requests.map((r) => r.messages)).toEqual(
            expectedSent.filter((_, k) => !stoppedCalls.has(k)),
          );
          // No tool call of a response a post hook stopped or blocked ran; every other one did.
          for (const id of executed) expect(withheld.has(id)).toBe(false);
          const offered = events.flatMap((e) =>
            e.type === "model-response"
              ? e.response.parts.flatMap((p) => (p.type === "tool-call" ? [p.id] : []))
              : [],
          );
          expect(executed).toEqual(offered);
          for (const id of withheld) expect(offered).not.toContain(id);
          // Every verdict is an event, in order, and in the step records (a block's only as an event: the run rejected).
          const heard = events.flatMap((e) =>
            e.type === "model-hook" ? [{ phase: e.phase, by: e.by, verdict: e.verdict }] : [],
          );
          const shown = ({ phase, by, verdict }: Given) => ({ phase, by, verdict });
          expect(heard).toEqual(given.map(shown));
          const blocked = given.find((v) => v.verdict === "block")?.call;
          const recorded = steps
            .flatMap((s) => s.modelVerdicts ?? [])
            .map(({ reason: _r, ...v }) => v);
          expect(recorded).toEqual(given.filter((v) => v.call !== blocked).map(shown));
        },
      ),
      { numRuns: runs(150) },
    );
  });
});
