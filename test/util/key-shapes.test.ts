import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { AgentLoop, type ModelStreamPart, type Provider } from "tollgate";
import { recordProvider } from "tollgate/testing";
import { describe, expect, it } from "vitest";
import { redactKeyShapes } from "../../src/util/key-shapes.js";
import { runs } from "../support/runs.js";

/** The oracle: the shapes as they were written before issue 24, one regular expression each. */
const ORACLE_SHAPES: readonly RegExp[] = [
  /\b(?:sk|pk|rk)[-_][A-Za-z0-9_*.-]{8,}/g,
  /\bAIza[0-9A-Za-z_-]{20,}/g,
  /\b(?:gsk|hf|ghp|gho|ghs|github_pat|xoxb|xoxp)_[A-Za-z0-9_]{8,}/g,
  /\bxai-[A-Za-z0-9_-]{8,}/g,
  /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g,
  /\b(Bearer|Basic|Token)\s+[A-Za-z0-9._~+/=-]{8,}/gi,
  /\b([A-Za-z-]*(?:api[-_]?key|access[-_]?token|secret|password|auth[-_]?token)["']?\s*[:=]\s*["']?)[^\s"'&,}]{8,}/gi,
];

function oracleRedact(text: string): string {
  let out = text;
  for (const shape of ORACLE_SHAPES) {
    out = out.replace(shape, (_match, prefix?: unknown) =>
      typeof prefix === "string" && prefix !== ""
        ? `${prefix}${/^(Bearer|Basic|Token)$/i.test(prefix) ? " " : ""}[redacted]`
        : "[redacted]",
    );
  }
  return out;
}

const piece = fc.constantFrom(
  ...["api_key", "APIKEY", "api-key", "access_token", "accessToken", "auth-token", "secret"],
  ...["password", "x-", "my", "9", "_", "-", "a", "Z", ":", "=", " ", '"', "'", "&", ",", "}"],
  ...["abcdefgh", "12345678", "é", "Bearer ", "sk-", "sk-proj-abcdefgh", "\n"],
);
const text = fc.array(piece, { maxLength: 16 }).map((pieces) => pieces.join(""));

describe("redactKeyShapes", () => {
  it("redacts exactly what the shapes' regular expressions did", () => {
    fc.assert(
      fc.property(text, (given) => {
        expect(redactKeyShapes(given)).toBe(oracleRedact(given));
      }),
      { numRuns: runs(20_000) },
    );
  });

  it("costs a long hyphenated run its length, not its length squared (40 kB of it took 2 s)", () => {
    const started = performance.now();
    for (const given of [
      "a-".repeat(500_000),
      "api".repeat(300_000),
      `9${"a".repeat(1_000_000)}api_key=api_key=abcdefghij`,
    ]) {
      redactKeyShapes(given);
    }
    expect(redactKeyShapes(`9${"a".repeat(100)}api_key=api_key=abcdefghij`)).toBe(
      `9${"a".repeat(100)}api_key=api_key=[redacted]`,
    );
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it("recording a streamed answer of 200 kB of hyphenated text takes well under seconds", async () => {
    const deltas = Array.from({ length: 2000 }, () => "a-".repeat(50));
    const real: Provider = {
      name: "real",
      model: "m",
      generate: () => Promise.reject(new Error("streams only")),
      async *stream() {
        for (const text of deltas) yield { type: "text-delta", text } satisfies ModelStreamPart;
        yield {
          type: "finish",
          finishReason: "stop",
          usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
        };
      },
    };
    const path = join(mkdtempSync(join(tmpdir(), "tollgate-key-shapes-")), "long.json");
    const started = performance.now();
    const result = await new AgentLoop({ provider: recordProvider(real, path) }).run("go");
    expect(performance.now() - started).toBeLessThan(5000);
    expect(result.text).toBe(deltas.join(""));
    expect(readFileSync(path, "utf8")).toContain('"text": "a-a-a-');
  });
});
