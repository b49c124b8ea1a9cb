/**
 * Calling a policy callback (DESIGN §5, §8): a throw, a rejection or an answer the reader
 * refuses is a `PolicyError` naming the callback and the tool, with the original as `cause`;
 * synchronous while the callback is. And `shortForm`, the rendering of a bad answer that
 * every such message (and the store's) shows.
 */
import { PolicyError } from "tollgate";
import { describe, expect, it } from "vitest";
import { callPolicy, readBoolean, shortForm } from "../../src/util/policy-call.js";

/** A reader that accepts numbers and refuses anything else. */
const readNumber = (answer: unknown) =>
  typeof answer === "number"
    ? { ok: true as const, value: answer }
    : { ok: false as const, problem: `returned ${shortForm(answer)}; return a number` };

/** The error `fn` throws, or with which the promise it returns rejects. */
async function failure(fn: () => unknown): Promise<unknown> {
  try {
    await fn();
  } catch (error) {
    return error;
  }
  throw new Error("expected a failure");
}

function expectPolicyError(
  error: unknown,
  message: string,
  callback: string,
  toolName: string | undefined,
) {
  expect(error).toBeInstanceOf(PolicyError);
  const policyError = error as PolicyError;
  expect(policyError.message).toBe(message);
  expect(policyError.callback).toBe(callback);
  expect(policyError.toolName).toBe(toolName);
}

describe("callPolicy", () => {
  it("a synchronous answer is read at once, not wrapped in a promise", () => {
    const answer = callPolicy("decideToolCall", "pay", () => 7, readNumber);
    expect(answer).toBe(7);
  });

  it("an async answer is read once it resolves", async () => {
    const answer = callPolicy("decideToolCall", "pay", async () => 7, readNumber);
    expect(answer).toBeInstanceOf(Promise);
    await expect(answer).resolves.toBe(7);
  });

  it("a thenable that is not a promise is awaited too", async () => {
    // biome-ignore lint/suspicious/noThenProperty: a thenable is what this test is about
    const thenable = { then: (resolve: (value: number) => void) => resolve(8) };
    await expect(callPolicy("endsRun", "pay", () => thenable, readNumber)).resolves.toBe(8);
  });

  it("a throw is a PolicyError naming the callback and the tool, with the original as cause", () => {
    const boom = new Error("boom");
    let error: unknown;
    try {
      callPolicy(
        "decideToolCall",
        "pay",
        () => {
          throw boom;
        },
        readNumber,
      );
    } catch (caught) {
      error = caught;
    }
    expectPolicyError(error, "decideToolCall (tool pay) threw: boom", "decideToolCall", "pay");
    expect((error as PolicyError).cause).toBe(boom);
  });

  it("a callback about no tool is named alone", async () => {
    const error = await failure(() =>
      callPolicy(
        "prepareStep",
        undefined,
        () => {
          throw "no steps today";
        },
        readNumber,
      ),
    );
    expectPolicyError(error, "prepareStep threw: no steps today", "prepareStep", undefined);
    expect((error as PolicyError).cause).toBe("no steps today");
  });

  it("a rejection is the same PolicyError, later", async () => {
    const boom = new Error("later boom");
    const answer = callPolicy("endsRun", "pay", () => Promise.reject(boom), readNumber);
    const error = await failure(() => answer);
    expectPolicyError(error, "endsRun (tool pay) threw: later boom", "endsRun", "pay");
    expect((error as PolicyError).cause).toBe(boom);
  });

  it("an answer whose `then` getter throws is a PolicyError, not a crash", () => {
    const boom = new Error("then getter");
    const answer = {
      // biome-ignore lint/suspicious/noThenProperty: a hostile thenable is what this test is about
      get then() {
        throw boom;
      },
    };
    let error: unknown;
    try {
      callPolicy("decideToolCall", "pay", () => answer, readNumber);
    } catch (caught) {
      error = caught;
    }
    expectPolicyError(
      error,
      "decideToolCall (tool pay) threw: then getter",
      "decideToolCall",
      "pay",
    );
    expect((error as PolicyError).cause).toBe(boom);
  });

  it("an answer the reader refuses is a PolicyError with the reader's problem and no cause", async () => {
    let error: unknown;
    try {
      callPolicy("needsApproval", "pay", () => "yes", readNumber);
    } catch (caught) {
      error = caught;
    }
    expectPolicyError(
      error,
      'needsApproval (tool pay) returned "yes"; return a number',
      "needsApproval",
      "pay",
    );
    expect((error as PolicyError).cause).toBeUndefined();

    const later = await failure(() =>
      callPolicy("needsApproval", "pay", async () => null, readNumber),
    );
    expectPolicyError(
      later,
      "needsApproval (tool pay) returned null; return a number",
      "needsApproval",
      "pay",
    );
  });

  it("a reader that throws (a getter on the answer) is a PolicyError with that cause", async () => {
    const boom = new Error("getter");
    const reader = () => {
      throw boom;
    };
    const now = await failure(() => callPolicy("decideToolCall", "pay", () => ({}), reader));
    expectPolicyError(now, "decideToolCall (tool pay) threw: getter", "decideToolCall", "pay");
    expect((now as PolicyError).cause).toBe(boom);
    const later = await failure(() =>
      callPolicy("decideToolCall", "pay", async () => ({}), reader),
    );
    expectPolicyError(later, "decideToolCall (tool pay) threw: getter", "decideToolCall", "pay");
  });
});

describe("readBoolean", () => {
  it("takes true and false, and names anything else", () => {
    expect(readBoolean(true)).toEqual({ ok: true, value: true });
    expect(readBoolean(false)).toEqual({ ok: true, value: false });
    expect(readBoolean("true")).toEqual({
      ok: false,
      problem: 'returned "true"; return true or false',
    });
    expect(readBoolean(undefined)).toEqual({
      ok: false,
      problem: "returned undefined; return true or false",
    });
  });
});

describe("shortForm", () => {
  it("quotes a string and keeps its first 60 characters", () => {
    expect(shortForm("yes")).toBe('"yes"');
    expect(shortForm("")).toBe('""');
    expect(shortForm("a".repeat(100))).toBe(JSON.stringify("a".repeat(60)));
  });

  it("names what JSON cannot show", () => {
    expect(shortForm(undefined)).toBe("undefined");
    expect(shortForm(() => true)).toBe("a function");
    expect(shortForm(Symbol("yes"))).toBe("a symbol");
  });

  it("shows other values as JSON", () => {
    expect(shortForm(null)).toBe("null");
    expect(shortForm(42)).toBe("42");
    expect(shortForm(false)).toBe("false");
    expect(shortForm({ decision: "ALLOW" })).toBe('{"decision":"ALLOW"}');
    expect(shortForm(["ALLOW"])).toBe('["ALLOW"]');
  });

  it("cuts JSON longer than 80 characters to 77 and an ellipsis", () => {
    const eighty = ["x".repeat(76)]; // ["xxx…"] is 80 characters
    expect(shortForm(eighty)).toBe(JSON.stringify(eighty));
    const eightyOne = ["x".repeat(77)];
    expect(shortForm(eightyOne)).toBe(`${JSON.stringify(eightyOne).slice(0, 77)}...`);
    expect(shortForm(eightyOne)).toHaveLength(80);
  });

  it("an object whose toJSON gives nothing is named by its type", () => {
    expect(shortForm({ toJSON: () => undefined })).toBe("object");
  });

  it("never throws: a cycle or a BigInt is named, not shown", () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(shortForm(cyclic)).toMatch(/^an? object that cannot be shown$/);
    expect(shortForm(10n)).toBe("a bigint that cannot be shown");
    const hostile = {
      toJSON() {
        throw new Error("no");
      },
    };
    expect(shortForm(hostile)).toMatch(/^an? object that cannot be shown$/);
  });
});
