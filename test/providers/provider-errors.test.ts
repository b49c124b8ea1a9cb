import { describe, expect, it } from "vitest";
import { errorDetails, redact } from "../../src/http/provider-errors.js";
import { cassette, recording, recordingJson } from "./support/recordings.js";

describe("errorDetails reads each provider's own error envelope", () => {
  it("OpenAI {error:{message,type,code}} (vercel reasoning-model-legacy-parameter-error.json)", () => {
    expect(
      errorDetails(recording("openai-chat/reasoning-model-legacy-parameter-error.json")),
    ).toEqual({
      message:
        "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
      kind: "invalid_request_error",
    });
  });

  it("Anthropic {type:'error',error:{type,message}} (anthropic-sdk-python a8b7dbb8….json)", () => {
    const body = recordingJson("anthropic/a8b7dbb8-2321-4624-abdb-7ba2136b5c38.json")[0].response
      .body;
    expect(errorDetails(body)).toEqual({ message: body.error.message, kind: "rate_limit_error" });
  });

  it("Google {error:{code,message,status}}, also wrapped in an array (test_model_name_suggestion[google].yaml)", () => {
    const body = cassette("google/test_model_name_suggestion[google].yaml")[0]?.response
      .parsed_body as any;
    const expected = { message: body.error.message, kind: "NOT_FOUND" };
    expect(errorDetails(body)).toEqual(expected);
    expect(errorDetails(JSON.stringify([body]))).toEqual(expected);
  });

  it("Groq's status_code inside a stream error frame (test_tool_use_failed_error_streaming.yaml)", () => {
    const raw =
      cassette("openai-chat/test_tool_use_failed_error_streaming.yaml")[0]?.response.body?.string ??
      "";
    const frame = raw.split("event: error\ndata: ")[1]?.trim() ?? "";
    expect(errorDetails(frame)).toMatchObject({ kind: "invalid_request_error", status: 400 });
  });

  it("OpenAI-compatible bodies with a top-level message or detail, and bodies that are not JSON", () => {
    expect(
      errorDetails({ object: "error", message: "model not found", type: "NotFoundError" }),
    ).toEqual({
      message: "model not found",
      kind: "NotFoundError",
    });
    expect(errorDetails({ detail: "Not Found" })).toEqual({ message: "Not Found" });
    expect(errorDetails({ error: "bad key" })).toEqual({ message: "bad key" });
    expect(errorDetails("<html>502 Bad Gateway</html>")).toEqual({});
  });
});

describe("redact", () => {
  it("replaces every occurrence of a key, and leaves short or missing keys alone", () => {
    expect(redact("a sk-12345678 b sk-12345678", "sk-12345678")).toBe("a [redacted] b [redacted]");
    expect(redact("abc", "abc")).toBe("abc");
    expect(redact("abc", undefined)).toBe("abc");
  });
});
