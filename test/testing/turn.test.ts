/**
 * The fakes check each answer twice over: a quick test that builds no message, and the check
 * that says what is wrong. They must agree, else a reply slips through or an error has no words.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkReply, throwWhy } from "../../src/testing/turn.js";
import { runs } from "../support/runs.js";

const value = fc.oneof(
  fc.constant(undefined),
  fc.constant(null),
  fc.string({ maxLength: 3 }),
  fc.integer(),
  fc.constant({}),
  fc.constant([]),
);
const toolCall = fc.dictionary(fc.constantFrom("name", "args", "id", "arguments", "nme"), value, {
  maxKeys: 4,
});
const reply = fc.oneof(
  value,
  fc.dictionary(
    fc.constantFrom("text", "reasoning", "toolCalls", "finishReason", "usage", "txt", "content"),
    fc.oneof(value, fc.array(fc.oneof(toolCall, value), { maxLength: 3 })),
    { maxKeys: 5 },
  ),
);

describe("the fakes' reply check", () => {
  it("passes a reply exactly when the worded check finds nothing, and always says why it refuses", () => {
    fc.assert(
      fc.property(reply, (given) => {
        let worded: unknown;
        try {
          throwWhy("here", given);
        } catch (error) {
          worded = error;
        }
        let checked: unknown;
        try {
          checkReply("here", given);
        } catch (error) {
          checked = error;
        }
        expect(checked === undefined).toBe(worded === undefined);
        if (checked !== undefined) {
          expect(checked).toBeInstanceOf(TypeError);
          expect((checked as Error).message).not.toMatch(/not a reply a fake can give/);
        }
      }),
      { numRuns: runs(2000) },
    );
  });
});
