import "tollgate/vitest";
import { describe, expect, it } from "vitest";
import { notesLoop } from "../support/decision-runs.js";

/**
 * Issue 24, section 5 (honest errors): the matchers say "ran" and "asked for" apart.
 */

/** The failure message of an assertion that must fail. */
function failureOf(assertion: () => void): string {
  try {
    assertion();
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error("the assertion passed, and it should have failed");
}

describe("the matchers say 'ran' and 'asked for' apart", () => {
  const pausedRun = () =>
    notesLoop([
      {
        toolCalls: [
          { name: "read_note", args: { path: "b.txt" } },
          { name: "delete_note", args: { path: "old.txt" } },
          { name: "read_note", args: { path: "/etc/passwd" } },
        ],
      },
    ]).run("go");

  it("toHaveRunTool: the tool ran; a call the model made that did not run fails, saying so", async () => {
    const paused = await pausedRun();
    expect(paused).toHaveRunTool("read_note", { path: "b.txt" });
    expect(paused).not.toHaveRunTool("delete_note");
    const message = failureOf(() => expect(paused).toHaveRunTool("delete_note"));
    expect(message).toContain(
      "expected the run to have run delete_note, but the model asked for delete_note and it did not run (needs-approval)",
    );
  });

  it("toHaveRequestedTool: the model asked for it, whatever the gate said, with the args it sent", async () => {
    const paused = await pausedRun();
    expect(paused).toHaveRequestedTool("delete_note");
    expect(paused).toHaveRequestedTool("delete_note", { path: "old.txt" });
    expect(paused).toHaveRequestedTool("read_note", { path: "/etc/passwd" }); // blocked, still asked
    expect(paused).not.toHaveRequestedTool("send_note");
    const message = failureOf(() =>
      expect(paused).toHaveRequestedTool("delete_note", { path: "new.txt" }),
    );
    expect(message).toContain(
      'expected the model to have asked for delete_note with args {"path":"new.txt"}, but it asked for delete_note only with {"path":"old.txt"}',
    );
    expect(failureOf(() => expect(paused).not.toHaveRequestedTool("delete_note"))).toContain(
      "expected the model not to have asked for delete_note, but it did (step 0)",
    );
  });

  it("toHaveCalledTool, the old name, checks that the tool ran and says 'ran' in its failure", async () => {
    const paused = await pausedRun();
    expect(paused).toHaveCalledTool("read_note");
    const message = failureOf(() => expect(paused).toHaveCalledTool("delete_note"));
    expect(message).toContain(
      "expected the run to have run delete_note, but the model asked for delete_note and it did not run (needs-approval)",
    );
  });
});
