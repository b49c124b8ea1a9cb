import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  agentName,
  buildAgents,
  callId,
  emptyTrace,
  type Outcome,
  resumeToEnd,
  type Scenario,
  type ScenarioCall,
  type Trace,
  type Verdict,
} from "../support/handoff-agents.js";

/**
 * Handoffs under random scripts (issue 30 §1, "How it is shown"): a random graph of 2–3 agents,
 * a random script mixing tool calls and handoff calls (to neighbours, to agents that are not
 * neighbours, to the agent itself), random policy verdicts, random approvals on resume, each
 * resume on a fresh set of loops from the JSON state. The oracle below predicts, from the
 * scenario alone, which tools run, which calls are gated, which agent answers each step and
 * which handoffs take effect; the loops' own tools, policies, providers and listeners report
 * what happened (test/support/handoff-agents.ts), never the loop's step records alone.
 */

const verdictArb = fc.constantFrom<Verdict>("ALLOW", "DENY", "NEEDS_APPROVAL");
const callArb = (agents: number): fc.Arbitrary<ScenarioCall> =>
  fc.oneof(
    fc.record({
      kind: fc.constant("tool" as const),
      tool: fc.constantFrom<"x" | "y">("x", "y"),
      verdict: verdictArb,
      approve: fc.boolean(),
    }),
    fc.record({
      kind: fc.constant("handoff" as const),
      target: fc.integer({ min: 0, max: agents - 1 }),
      verdict: verdictArb,
      approve: fc.boolean(),
    }),
  );
const scenarioArb: fc.Arbitrary<Scenario> = fc.integer({ min: 2, max: 3 }).chain((agents) =>
  fc.record({
    graph: fc
      .array(
        fc.array(fc.record({ edge: fc.integer({ min: 0, max: 3 }), filter: fc.boolean() }), {
          minLength: agents,
          maxLength: agents,
        }),
        { minLength: agents, maxLength: agents },
      )
      .map((rows) =>
        rows.map((row, from) =>
          row.flatMap(({ edge, filter }, target) =>
            target !== from && edge > 0 ? [{ target, filter }] : [],
          ),
        ),
      ),
    script: fc.array(fc.array(callArb(agents), { minLength: 1, maxLength: 3 }), {
      minLength: 1,
      maxLength: 5,
    }),
    resumeOn: fc.array(fc.nat({ max: 5 }), { minLength: 1, maxLength: 6 }),
  }),
);

/** What the scenario must do, computed from DESIGN and the handoff rules alone. */
function oracle(scenario: Scenario) {
  const executed: string[] = [];
  const gated: string[] = [];
  const modelCalls: { step: number; agent: number }[] = [];
  const handoffs: Trace["handoffs"] = [];
  const stepAgents: string[] = [];
  const pausedAgents: string[] = [];
  /** Steps whose model is sent a transcript filtered by `removeToolCalls`. */
  const filteredSteps: number[] = [];
  let agent = 0;
  for (let step = 0; ; step++) {
    stepAgents.push(agentName(agent));
    modelCalls.push({ step, agent });
    const calls = scenario.script[step];
    if (calls === undefined) break;
    let handoffSeen = false;
    let pauses = false;
    let next = agent;
    calls.forEach((call, index) => {
      const id = callId(step, index);
      let filter = false;
      if (call.kind === "handoff") {
        const edge = scenario.graph[agent]!.find(({ target }) => target === call.target);
        if (edge === undefined) return; // not a tool of this agent: "not available", not gated
        if (handoffSeen) return; // one handoff per step: a later one is not gated, not run
        handoffSeen = true;
        filter = edge.filter;
      }
      gated.push(`${agent}:${id}`);
      if (call.verdict === "NEEDS_APPROVAL") pauses = true;
      const allowed =
        call.verdict === "ALLOW" || (call.verdict === "NEEDS_APPROVAL" && call.approve);
      if (!allowed) return;
      if (call.kind === "tool") {
        executed.push(`${agent}:${call.tool}:${id}`);
      } else {
        handoffs.push({ from: agentName(agent), to: agentName(call.target), toolCallId: id, step });
        next = call.target;
        if (filter) filteredSteps.push(step + 1);
      }
    });
    if (pauses) pausedAgents.push(agentName(agent));
    // The handoff takes effect when the step closes (after the resume, when it paused).
    agent = next;
  }
  return { executed, gated, modelCalls, handoffs, stepAgents, pausedAgents, filteredSteps, agent };
}

/** Runs a scenario to its end; the first resume (when it pauses) goes to `resumeFirst`. */
async function play(
  scenario: Scenario,
  resumeFirst?: (state: unknown) => Promise<{ trace: Trace; outcome: Outcome }>,
) {
  const trace = emptyTrace();
  const first = await buildAgents(scenario, trace)[0]!.run("go");
  if (first.status !== "needs_approval" || resumeFirst === undefined) {
    return { trace, outcome: await resumeToEnd(scenario, trace, first, 0) };
  }
  const pausedAgent = first.state.agent;
  const agentMatches = first.agent === first.state.agent;
  const child = await resumeFirst(first.state);
  trace.executed.push(...child.trace.executed);
  trace.gated.push(...child.trace.gated);
  trace.modelCalls.push(...child.trace.modelCalls);
  trace.handoffs.push(...child.trace.handoffs);
  // The child's outcome starts at the state it was handed, the first pause.
  expect(child.outcome.pausedAgents[0]).toBe(pausedAgent);
  expect(agentMatches).toBe(true);
  return { trace, outcome: child.outcome };
}

function check(scenario: Scenario, trace: Trace, outcome: Outcome) {
  const expected = oracle(scenario);
  // (a) No tool runs and no handoff takes effect without ALLOW (the policy's, or a human's).
  expect([...trace.executed].sort()).toEqual([...expected.executed].sort());
  expect(trace.gated).toEqual(expected.gated);
  // (b) Every handoff that took effect is recorded: one event each, and the step's agent changes.
  expect(trace.handoffs).toEqual(expected.handoffs);
  expect(trace.modelCalls.map(({ step, agent }) => ({ step, agent }))).toEqual(expected.modelCalls);
  expect(outcome.stepAgents).toEqual(expected.stepAgents);
  outcome.stepAgents.forEach((agent, step) => {
    const next = outcome.stepAgents[step + 1];
    const event = trace.handoffs.find((h) => h.step === step);
    if (next === undefined || next === agent) expect(event).toBeUndefined();
    else expect(event).toMatchObject({ from: agent, to: next });
  });
  for (const step of expected.filteredSteps) {
    expect(trace.modelCalls.find((call) => call.step === step)?.toolParts).toBe(false);
  }
  // (c) Each paused state names the agent that holds it; loops that do not reach it refuse it.
  expect(outcome.pausedAgents).toEqual(expected.pausedAgents);
  expect(outcome.agentMismatches).toBe(0);
  expect(outcome.strangers.every((answer) => answer === "ResumeError")).toBe(true);
  expect(outcome.status).toBe("completed");
  expect(outcome.agent).toBe(agentName(expected.agent));
}

describe("handoffs under random scripts", () => {
  it("only ALLOWed tools and handoffs take effect, every handoff is recorded, every resume (fresh loops, JSON state) continues with the right agent", async () => {
    await fc.assert(
      fc.asyncProperty(scenarioArb, async (scenario) => {
        const { trace, outcome } = await play(scenario);
        check(scenario, trace, outcome);
      }),
      { numRuns: 100 },
    );
  });
});

const CHILD = join(import.meta.dirname, "..", "support", "handoff-agents.ts");

/** Resumes a paused state in another Node process; returns what it printed. */
function resumeInChild(scenario: Scenario, state: unknown) {
  const file = join(mkdtempSync(join(tmpdir(), "tollgate-handoff-")), "paused.json");
  writeFileSync(file, JSON.stringify({ scenario, state, round: 0 }));
  return new Promise<{ trace: Trace; outcome: Outcome; pid: number }>((resolve, reject) => {
    const proc = spawn(process.execPath, ["--import", "tsx", CHILD, file], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    proc.stdout.on("data", (chunk) => (stdout += chunk));
    proc.stderr.on("data", (chunk) => (stderr += chunk));
    proc.on("exit", (code) => {
      if (code !== 0) return reject(new Error(`child exited ${code}: ${stderr}`));
      try {
        resolve(JSON.parse(stdout.trim().split("\n").at(-1)!));
      } catch (error) {
        reject(new Error(`child printed no result: ${stdout}${stderr}`, { cause: error }));
      }
    });
  });
}

/** a0 asks to hand off to a1 (approved in the child), a1 pauses again, then hands back to a0. */
const pausedHandoff: Scenario = {
  graph: [[{ target: 1, filter: false }], [{ target: 0, filter: true }]],
  script: [
    [
      { kind: "handoff", target: 1, verdict: "NEEDS_APPROVAL", approve: true },
      { kind: "tool", tool: "x", verdict: "ALLOW", approve: false },
    ],
    [{ kind: "tool", tool: "y", verdict: "NEEDS_APPROVAL", approve: true }],
    [{ kind: "handoff", target: 0, verdict: "ALLOW", approve: false }],
  ],
  resumeOn: [0, 1],
};

// Child processes take seconds each; `npm run mutate` (which runs covering tests per mutant) leaves them out.
describe.skipIf(process.env.TOLLGATE_MUTATION === "1")("handoffs across processes", () => {
  it("a pending handoff approved in another Node process takes effect there: the next step is the target's", async () => {
    let child: { trace: Trace; outcome: Outcome; pid: number } | undefined;
    const { trace, outcome } = await play(pausedHandoff, async (state) => {
      child = await resumeInChild(pausedHandoff, state);
      return child;
    });
    check(pausedHandoff, trace, outcome);
    expect(child!.pid).not.toBe(process.pid);
    expect(child!.trace.handoffs).toEqual([
      { from: "a0", to: "a1", toolCallId: "s0c0", step: 0 },
      { from: "a1", to: "a0", toolCallId: "s2c0", step: 2 },
    ]);
    expect(child!.trace.modelCalls.map(({ step, agent }) => [step, agent])).toEqual([
      [1, 1],
      [2, 1],
      [3, 0],
    ]);
    expect(outcome.stepAgents).toEqual(["a0", "a1", "a1", "a0"]);
  }, 30_000);

  it("random paused runs resumed in another Node process match the oracle", async () => {
    await fc.assert(
      fc.asyncProperty(
        scenarioArb.filter((scenario) => oracle(scenario).pausedAgents.length > 0),
        async (scenario) => {
          const { trace, outcome } = await play(scenario, (state) =>
            resumeInChild(scenario, state),
          );
          check(scenario, trace, outcome);
        },
      ),
      { numRuns: 2 },
    );
  }, 60_000);
});
