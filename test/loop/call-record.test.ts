import { describe, expect, it } from "vitest";
import { recordWith } from "../../src/loop/call-record.js";
import type { CallRecord } from "../../src/types/step-record.js";

describe("recordWith (a call record copied field by field)", () => {
  it("keeps every field of CallRecord but the verdict and who decided", () => {
    // Every key of CallRecord, required here: a new field fails to type-check until the copy
    // (and this record) know it.
    const full: Required<CallRecord> = {
      toolCallId: "call_0_0",
      toolName: "refund",
      rawArgs: '{"amount":5}',
      args: { amount: 5 },
      editedFrom: { amount: 50 },
      repairedFrom: "{amount:5}",
      started: true,
      verdict: "needs-approval",
      by: "policy",
      reason: "over the limit",
      result: { toolCallId: "call_0_0", toolName: "refund", output: "ok", isError: false },
      ms: 12,
      subRun: { runId: "r/1", stateId: "s" },
      external: true,
    };
    const copy = recordWith(full, "allow", "approval");
    expect(copy).toEqual({ ...full, verdict: "allow", by: "approval" });
    expect(Object.keys(copy).sort()).toEqual(Object.keys(full).sort());
    expect(copy).not.toBe(full);
  });

  it("leaves out the fields the record does not have", () => {
    const arrived: CallRecord = {
      toolCallId: "call_0_0",
      toolName: "ping",
      rawArgs: "{}",
      verdict: "allow",
      by: "default",
    };
    expect(Object.keys(recordWith(arrived, "deny", "hook:0"))).toEqual([
      "toolCallId",
      "toolName",
      "rawArgs",
      "verdict",
      "by",
    ]);
  });
});
