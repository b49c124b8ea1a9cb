// Type tests: RunResult discriminated by status; typed approval decisions.
import {
  type AgentLoop,
  type ApprovalDecision,
  type ApprovalDecisions,
  isCallTo,
  type PendingApproval,
  type RunResult,
  type RunState,
  type ToolCall,
  type ToolInput,
  tool,
} from "tollgate";
import { expectTypeOf } from "vitest";
import { z } from "zod";

const sendEmail = tool({
  name: "send_email",
  input: z.object({ to: z.string(), subject: z.string() }),
  needsApproval: true,
  execute: () => "sent",
});

declare const result: RunResult;
// `state` is always there; `pending` only once the status says so.
expectTypeOf(result.state).toEqualTypeOf<RunState>();
// @ts-expect-error pending may be absent before narrowing
void result.pending.length;
if (result.status === "needs_approval") {
  expectTypeOf(result.pending).toEqualTypeOf<PendingApproval[]>();
}
if (result.status === "ended_by_tool") expectTypeOf(result.endedBy).toEqualTypeOf<ToolCall>();
if (result.status === "stopped") {
  expectTypeOf(result.stopReason).toEqualTypeOf<string | undefined>();
}
if (result.status === "completed") expectTypeOf(result.pending).toEqualTypeOf<undefined>();
// Optional chaining keeps working without narrowing.
expectTypeOf(result.pending?.[0]).toEqualTypeOf<PendingApproval | undefined>();

// A result cannot claim needs_approval without its pending calls.
// @ts-expect-error `pending` is required when the status is "needs_approval"
const paused: RunResult = {
  status: "needs_approval",
  text: "",
  messages: [],
  steps: [],
  usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
  finishReason: "tool-calls",
  state: result.state,
};
void paused;

// Decisions: edited args typed from the pending call's tool once it is narrowed.
declare const loop: AgentLoop;
async function decide(run: RunResult): Promise<void> {
  if (run.status !== "needs_approval") return;
  const decisions: ApprovalDecisions = {};
  for (const call of run.pending) {
    if (isCallTo(call, sendEmail)) {
      expectTypeOf(call.args).toEqualTypeOf<{ to: string; subject: string }>();
      const edited: ApprovalDecision<ToolInput<typeof sendEmail>> = {
        approve: true,
        args: { ...call.args, subject: `[reviewed] ${call.args.subject}` },
        digest: call.digest,
      };
      decisions[call.toolCallId] = edited;
    } else {
      decisions[call.toolCallId] = { approve: false, reason: "not reviewed" };
    }
  }
  await loop.resume(run.state, decisions);
}
void decide;

// @ts-expect-error edited args must fit the tool's input
const wrong: ApprovalDecision<ToolInput<typeof sendEmail>> = { approve: true, args: { to: 1 } };
// @ts-expect-error a refusal carries no args
const refusal: ApprovalDecision = { approve: false, args: {} };
void wrong;
void refusal;
