import { describe, expect, it } from "vitest";
import { redactJson } from "../../src/testing/cassette-redact.js";

/** A recorded model response with one tool call whose args are `args`. */
const response = (args: string) => ({
  parts: [{ type: "tool-call", id: "c1", name: "lookup", args }],
  finishReason: "tool-calls",
});

describe("a cassette's recorded tool-call args replay as the tool got them", () => {
  it("keeps a value after a name that is data, not a credential (key, session, token)", () => {
    const args = '{"key":"user-12345678","session":"booking-2026-12","token":"abcdefgh-1"}';
    const recorded = redactJson(response(args), [], false) as ReturnType<typeof response>;
    expect(recorded.parts[0]!.args).toBe(args);
  });

  it("still redacts what is shaped like a key, or follows an API key's name", () => {
    const args = '{"q":"sk-proj-abcdefghijklmnopqrstuvwx","api_key":"hunter2hunter2"}';
    const recorded = redactJson(response(args), [], false) as ReturnType<typeof response>;
    expect(recorded.parts[0]!.args).not.toContain("sk-proj-abcdefghijklmnopqrstuvwx");
    expect(recorded.parts[0]!.args).not.toContain("hunter2hunter2");
  });

  it("text elsewhere is scrubbed by name as before", () => {
    const recorded = redactJson({ text: "session=abcdefgh1234" }, [], false) as { text: string };
    expect(recorded.text).toBe("session=[redacted]");
  });
});
