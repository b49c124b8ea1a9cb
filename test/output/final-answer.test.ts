import fc from "fast-check";
import { AgentLoop } from "tollgate";
import { scriptedProvider } from "tollgate/testing";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { unfenced } from "../../src/output/final-answer.js";
import { runs } from "../support/runs.js";

/** The oracle: the regular expressions `unfenced` was before issue 24, copied as they were. */
function oracleUnfenced(text: string): string {
  const whole = /^\s*```[a-zA-Z]*\s*\n([\s\S]*?)\n?\s*```\s*$/.exec(text);
  if (whole) return whole[1]!;
  const blocks = [...text.matchAll(/```[a-zA-Z]*[ \t]*\n([\s\S]*?)\n?[ \t]*```/g)];
  return blocks.length === 1 ? blocks[0]![1]! : text;
}

const piece = fc.constantFrom(
  ..."`\n \t\r\u00a0\u2028a{}",
  "```",
  "```json\n",
  "\n```",
  "json",
  "Sure:",
  '{"a": 1}',
);
const text = fc.array(piece, { maxLength: 14 }).map((pieces) => pieces.join(""));

describe("unfenced: the JSON inside a fenced answer", () => {
  it("reads exactly what its regular expressions read", () => {
    fc.assert(
      fc.property(text, (given) => {
        expect(unfenced(given)).toBe(oracleUnfenced(given));
      }),
      { numRuns: runs(30_000) },
    );
  });

  it("an answer of a fence and thousands of blank lines is read at once (it took minutes), and fed back", async () => {
    const provider = scriptedProvider(
      [{ text: `\`\`\`\n${"\n".repeat(4000)}` }, { text: '```json\n{"city": "Oslo"}\n```' }],
      { supportsNativeOutput: true },
    );
    const started = performance.now();
    const result = await new AgentLoop({ provider, output: z.object({ city: z.string() }) }).run(
      "?",
    );
    expect(performance.now() - started).toBeLessThan(2000);
    expect(result.output).toEqual({ city: "Oslo" });
  });
});
