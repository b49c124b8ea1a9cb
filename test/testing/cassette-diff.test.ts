import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AgentLoop } from "tollgate";
import { CassetteError, recordProvider, replayProvider, scriptedProvider } from "tollgate/testing";
import { describe, expect, it } from "vitest";

/**
 * Issue 24, section 5 (honest errors): a cassette's drift shows where two long texts differ.
 */

describe("a cassette's drift shows where two long texts differ", () => {
  it("a long prompt changed in its middle: the first differing character, with context on both sides", async () => {
    const path = join(mkdtempSync(join(tmpdir(), "tollgate-drift-")), "run.json");
    const head = "You are a careful assistant. ".repeat(40); // 1,160 characters alike
    const tail = " Keep each under twenty words.".repeat(10);
    const recorded = `${head}Summarise the report for the Oslo office, in three bullet points.${tail}`;
    const changed = `${head}Summarise the report for the Bergen office, in three bullet points.${tail}`;
    await new AgentLoop({ provider: recordProvider(scriptedProvider([{ text: "ok" }]), path) }).run(
      recorded,
    );
    const error = await new AgentLoop({ provider: replayProvider(path) })
      .run(changed)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CassetteError);
    const at = recorded.indexOf("Oslo");
    // 30 characters before the first difference, 40 from it, on both sides.
    expect(recorded.slice(at - 30, at + 40)).toBe(
      " Summarise the report for the Oslo office, in three bullet points. Kee",
    );
    expect((error as Error).message).toContain(
      `  messages[0].content: differs at character ${at} (lengths ${recorded.length} and ${changed.length}): ` +
        `expected …" Summarise the report for the Oslo office, in three bullet points. Kee"…` +
        `, got …" Summarise the report for the Bergen office, in three bullet points. K"…\n`,
    );
  });

  it("short values keep the plain form", async () => {
    const path = join(mkdtempSync(join(tmpdir(), "tollgate-drift-")), "run.json");
    await new AgentLoop({ provider: recordProvider(scriptedProvider([{ text: "ok" }]), path) }).run(
      "hello",
    );
    const error = await new AgentLoop({ provider: replayProvider(path) })
      .run("hullo")
      .catch((e: unknown) => e);
    expect((error as Error).message).toContain(
      '  messages[0].content: expected "hello", got "hullo"',
    );
  });
});
