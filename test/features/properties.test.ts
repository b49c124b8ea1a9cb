import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  expectCallbacks,
  expectEvents,
  expectExecutions,
  expectOutcome,
  expectPhaseTranscript,
  expectResults,
  play,
  predict,
  scenarioArb,
} from "../support/oracle.js";
import { runs } from "../support/runs.js";

/**
 * Random scripts of tool calls × well-formed hook verdicts, throwing hooks, policy decisions,
 * `needsApproval` settings and tool behaviours. Every property first checks that the run ended
 * exactly as the oracle (test/support/oracle.ts, written from DESIGN.md) predicts — resolved with
 * its status, or rejected with its error class — so no property can pass by swallowing an error.
 */
const scenarios = scenarioArb("basic");

describe("properties", () => {
  it("the transcript invariant holds for every ending of random runs (result.messages or error.messages)", async () => {
    await fc.assert(
      fc.asyncProperty(scenarios, async (scenario) => {
        const observed = await play(scenario);
        const expected = predict(scenario);
        expectOutcome(expected.run, observed.run, observed.providerError, false);
        expectPhaseTranscript(observed.run);
        expectResults(expected.run, observed.run);
      }),
      { numRuns: runs(400) },
    );
  });

  it("no tool runs without an ALLOW verdict from the oracle, each allowed call runs once, with the oracle's args", async () => {
    await fc.assert(
      fc.asyncProperty(scenarios, async (scenario) => {
        const observed = await play(scenario);
        const expected = predict(scenario);
        expectOutcome(expected.run, observed.run, observed.providerError, false);
        expectExecutions(expected.run, observed.run);
        expectCallbacks(expected.run, observed.run);
      }),
      { numRuns: runs(400) },
    );
  });

  it("every call gets at most one tool-call, tool-decision and tool-result (exactly one each, unless pending, on resolved runs), with the oracle's verdict", async () => {
    await fc.assert(
      fc.asyncProperty(scenarios, async (scenario) => {
        const observed = await play(scenario);
        const expected = predict(scenario);
        expectOutcome(expected.run, observed.run, observed.providerError, false);
        expectEvents(expected.run, observed.run);
      }),
      { numRuns: runs(400) },
    );
  });

  it("the oracle is not vacuous: the basic scenarios reach every ending", async () => {
    const seen = new Set<string>();
    for (const scenario of fc.sample(scenarios, { numRuns: 400, seed: 42 })) {
      const { outcome } = predict(scenario).run;
      seen.add(
        outcome.kind === "resolve" ? outcome.status : outcome.classes.map((c) => c.name).join("|"),
      );
    }
    for (const ending of [
      "completed",
      "stopped",
      "needs_approval",
      "max_steps",
      "HookError",
      "ToolRetriesExceededError",
    ]) {
      expect([...seen]).toContain(ending);
    }
  });
});
