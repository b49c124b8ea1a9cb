/**
 * A graph of agents for the handoff property tests, built from a scenario alone, so that the
 * test and a child process build the same agents, as two processes of one app would. Every
 * agent has the tools `x` and `y`, hands off to the agents its graph entry names, and answers
 * the run's step from the scenario's script (every agent's model reads the same script, so a
 * step is answered alike whichever agent holds it); its policy gives each call the verdict the
 * script says. What ran, what was gated, which model answered and which handoffs were reported
 * is written to a `Trace`, the raw material of the test's oracle.
 *
 * As a child process (`node --import tsx handoff-agents.ts <file>`): reads `{ scenario, state,
 * round }` from the file, resumes the paused state to the end (a fresh set of loops for each
 * pause) and prints `{ trace, outcome, pid }` as one JSON line.
 */
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import {
  AgentLoop,
  type ApprovalDecisions,
  handoff,
  type Message,
  ResumeError,
  type RunResult,
  type RunState,
  removeToolCalls,
  tool,
} from "tollgate";
import { functionProvider } from "tollgate/testing";
import { z } from "zod";

export type Verdict = "ALLOW" | "DENY" | "NEEDS_APPROVAL";

/** One call of the model's script: to a tool (`x`, `y`) or a handoff to an agent (by index). */
export type ScenarioCall =
  | { kind: "tool"; tool: "x" | "y"; verdict: Verdict; approve: boolean }
  | { kind: "handoff"; target: number; verdict: Verdict; approve: boolean };

export interface Scenario {
  /** Per agent, its handoffs: the target's index, and whether with `removeToolCalls`. */
  graph: { target: number; filter: boolean }[][];
  /** The model's calls, step by step; past the script, the model answers with text. */
  script: ScenarioCall[][];
  /** For each pause in turn, a number that picks the loop (of those that reach the state's agent) to resume on. */
  resumeOn: number[];
}

/** What the agents did, written by their tools, policies, models and listeners. */
export interface Trace {
  /** `<agent>:<tool>:<toolCallId>` for each `execute` that ran. */
  executed: string[];
  /** `<agent>:<toolCallId>` for each call the agent's policy was asked about. */
  gated: string[];
  /** Each model call: the run's step, the agent whose provider answered, whether it saw tool calls or results. */
  modelCalls: { step: number; agent: number; toolParts: boolean }[];
  /** The `handoff` events, as the loops' listeners got them. */
  handoffs: { from: string; to: string; toolCallId: string; step: number }[];
}

/** How a resumed run went: the agent of each paused state, the strangers' answers, the end. */
export interface Outcome {
  /** `state.agent` of each paused state, in order. */
  pausedAgents: (string | undefined)[];
  /** Pauses whose `result.agent` differed from their `state.agent`. */
  agentMismatches: number;
  /** For each resume tried on a loop that does not reach the state's agent: the error's name. */
  strangers: string[];
  status: string;
  agent: string | undefined;
  stepAgents: (string | undefined)[];
}

export const agentName = (index: number) => `a${index}`;
export const callId = (step: number, index: number) => `s${step}c${index}`;
export const emptyTrace = (): Trace => ({ executed: [], gated: [], modelCalls: [], handoffs: [] });

const hasToolParts = (messages: readonly Message[]) =>
  messages.some(
    (message) =>
      message.role === "tool" ||
      (message.role === "assistant" && message.parts.some((part) => part.type === "tool-call")),
  );

/** The script's call a tool-call id names. */
function planned(scenario: Scenario, id: string): ScenarioCall {
  const [, step, index] = /^s(\d+)c(\d+)$/.exec(id) ?? [];
  const found = scenario.script[Number(step)]?.[Number(index)];
  if (!found) throw new Error(`no call ${id} in the script`);
  return found;
}

/** A fresh set of loops for the scenario; index i is agent `a<i>`. */
export function buildAgents(scenario: Scenario, trace: Trace): AgentLoop[] {
  const loops: AgentLoop[] = [];
  scenario.graph.forEach((edges, agent) => {
    const tools = (["x", "y"] as const).map((name) =>
      tool({
        name,
        input: z.object({ n: z.number() }),
        execute: (_args, ctx) => {
          trace.executed.push(`${agent}:${name}:${ctx.toolCallId}`);
          return `${name} ran for ${agentName(agent)}`;
        },
      }),
    );
    const provider = functionProvider((request, { step }) => {
      trace.modelCalls.push({ step, agent, toolParts: hasToolParts(request.messages) });
      const calls = scenario.script[step];
      if (!calls) return { text: `done by ${agentName(agent)}` };
      return {
        toolCalls: calls.map((call, index) => ({
          id: callId(step, index),
          name: call.kind === "tool" ? call.tool : `transfer_to_${agentName(call.target)}`,
          args: call.kind === "tool" ? { n: step * 10 + index } : {},
        })),
      };
    });
    loops[agent] = new AgentLoop({
      name: agentName(agent),
      provider,
      tools,
      handoffs: edges.map(({ target, filter }) =>
        handoff(() => loops[target]!, {
          name: agentName(target),
          ...(filter ? { inputFilter: removeToolCalls } : {}),
        }),
      ),
      maxSteps: scenario.script.length + 2,
      maxRetries: 100,
      repeatDenied: "ask",
      trustState: true,
      policy: {
        decideToolCall: ({ call }) => {
          trace.gated.push(`${agent}:${call.id}`);
          return planned(scenario, call.id).verdict;
        },
      },
      onEvent: (event) => {
        if (event.type !== "handoff") return;
        const { from, to, toolCallId, step } = event;
        trace.handoffs.push({ from, to, toolCallId, step });
      },
    });
  });
  return loops;
}

/** The agents `from` reaches through its handoffs, itself included. */
export function reaches(scenario: Scenario, from: number): Set<number> {
  const seen = new Set([from]);
  const queue = [from];
  while (queue.length > 0) {
    for (const { target } of scenario.graph[queue.shift()!]!) {
      if (!seen.has(target)) {
        seen.add(target);
        queue.push(target);
      }
    }
  }
  return seen;
}

/**
 * Resumes a paused run until it ends: for each pause, a fresh set of loops (as another process
 * would build them); every loop that does not reach the state's agent is tried first and must
 * refuse; then the loop `resumeOn` picks among those that reach it resumes, with the script's
 * decisions. `round` is how many pauses came before `state`'s.
 */
export async function resumeToEnd(
  scenario: Scenario,
  trace: Trace,
  paused: RunResult,
  round: number,
): Promise<Outcome> {
  const outcome: Outcome = {
    pausedAgents: [],
    agentMismatches: 0,
    strangers: [],
    status: "",
    agent: undefined,
    stepAgents: [],
  };
  let result = paused;
  for (; result.status === "needs_approval"; round++) {
    if (round > 50) throw new Error("more pauses than the script has steps");
    const state: RunState = JSON.parse(JSON.stringify(result.state));
    outcome.pausedAgents.push(state.agent);
    if (result.agent !== state.agent) outcome.agentMismatches++;
    const holder = scenario.graph.findIndex((_, index) => agentName(index) === state.agent);
    const decisions: ApprovalDecisions = {};
    for (const pending of result.pending) {
      decisions[pending.toolCallId] = { approve: planned(scenario, pending.toolCallId).approve };
    }
    const loops = buildAgents(scenario, trace);
    const candidates = loops.flatMap((_, index) =>
      reaches(scenario, index).has(holder) ? [index] : [],
    );
    for (const [index, loop] of loops.entries()) {
      if (candidates.includes(index)) continue;
      outcome.strangers.push(
        await loop.resume(structuredClone(state), decisions).then(
          () => "resumed",
          (error: unknown) =>
            error instanceof ResumeError ? "ResumeError" : (error as Error).name,
        ),
      );
    }
    const chosen =
      candidates[(scenario.resumeOn[round % scenario.resumeOn.length] ?? 0) % candidates.length];
    if (chosen === undefined) throw new Error(`no loop reaches ${state.agent}`);
    result = await loops[chosen]!.resume(state, decisions);
  }
  outcome.status = result.status;
  outcome.agent = result.agent;
  outcome.stepAgents = result.steps.map((step) => step.agent);
  return outcome;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { scenario, state, round } = JSON.parse(readFileSync(process.argv[2]!, "utf8")) as {
    scenario: Scenario;
    state: RunState;
    round: number;
  };
  const trace = emptyTrace();
  // The paused result as the parent saw it: its state, and the pending calls it lists.
  const paused = {
    status: "needs_approval",
    state,
    pending: state.pending ?? [],
    agent: state.agent,
  } as unknown as RunResult;
  const outcome = await resumeToEnd(scenario, trace, paused, round);
  console.log(JSON.stringify({ trace, outcome, pid: process.pid }));
}
