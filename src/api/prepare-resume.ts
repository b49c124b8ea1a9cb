// From the core's entry (core.ts), not errors.ts: so this lazy module reaches the whole core.
import { ResumeError } from "../core.js";
import type { ResolvedOptions } from "../options/loop-options.js";
import { storedAnswerProblem } from "../output/final-answer.js";
import type { LocalLeases } from "../state/local-leases.js";
import { type RecentIds, recentIds } from "../state/recent-ids.js";
import type { ApprovalDecisions } from "../state/resume/decisions.js";
import { planResume, subRunStateIds } from "../state/resume/plan.js";
import type { ResumePlan } from "../state/resume/resolutions.js";
import type { StateSource } from "../state/resume/trust.js";
import type { RunLease } from "../state/run-store.js";
import { type RunData, restore } from "../state/snapshot.js";
import type { StoreCalls } from "../state/store-calls.js";
import type { RunState } from "../types/run-state.js";
import { canonicalJson } from "../util/canonical-json.js";
import { agentOfState } from "./agent-of-state.js";
import { giveBack, takeRun } from "./leased-run.js";
import { checkResumeInput, outputOf } from "./run-input.js";
import type { ResumeOptions } from "./run-options.js";

/** How many resumed state ids a loop without a store remembers to refuse a second resume. */
const REMEMBERED_RESUMES = 10_000;

/** A checked resume, ready to start: the run's data, its checked plan, its lease. */
export interface PreparedResume {
  data: RunData;
  plan: ResumePlan;
  lease: RunLease | undefined;
  /** The options of the agent holding the run (`state.agent`), when it is not the loop itself. */
  agent?: ResolvedOptions<any> | undefined;
}

/** What a loop's resumes share: its options, this process's leases, the states it resumed. */
export interface ResumeParts<Deps> {
  readonly options: ResolvedOptions<Deps>;
  /** The leases this process holds in the loop's store, shared with every loop over that store. */
  readonly leases: LocalLeases;
  /**
   * States this loop resumed, when it has no store (bounded: the latest 10,000); made on the
   * first resume, as most loops never resume.
   */
  resumed: RecentIds | undefined;
}

/**
 * Loads (from the store, for a run id) and checks the state and the decisions, takes the
 * run's lease, then claims the state: nothing has run when this throws, and a failed check
 * does not use the state up.
 */
export async function prepareResume<Deps>(
  loop: ResumeParts<Deps>,
  given: RunState | string,
  decisions: ApprovalDecisions,
  options: ResumeOptions<Deps>,
): Promise<PreparedResume> {
  const { store } = loop.options;
  checkResumeInput(given, decisions, options, store !== undefined, loop.options);
  const runId = typeof given === "string" ? given : (given as { runId?: unknown })?.runId;
  const lease =
    store && typeof runId === "string" ? await takeRun(store, runId, loop.leases) : undefined;
  try {
    const { state, source } = await stateToResume(given, store);
    const agent = agentOfState(loop.options, state);
    // A final-answer call ("tool" mode) a hook or the policy held for approval resumes too.
    const outputTool = outputOf(loop.options, options.output)?.tool;
    const settings = outputTool ? { ...agent, tools: agent.tools.with(outputTool) } : agent;
    const plan = await planResume(settings, state, source, decisions);
    const answerProblem = await storedAnswerProblem(
      plan.state,
      outputOf(loop.options, options.output),
    );
    if (answerProblem !== undefined) {
      throw new ResumeError(
        `the paused step already took a final answer that the output schema of this resume rejects (${answerProblem}); resume with the output the run was started with`,
      );
    }
    loop.options.signal?.throwIfAborted();
    options.signal?.throwIfAborted();
    await claim(loop, plan.state.stateId);
    // The paused sub-runs it holds are continued once, too.
    for (const stateId of subRunStateIds(plan)) await claim(loop, stateId);
    const data = restore(plan.state, loop.options.limits);
    return agent === loop.options ? { data, plan, lease } : { data, plan, lease, agent };
  } catch (error) {
    if (store && lease) await giveBack(loop.leases, store, lease);
    throw error;
  }
}

/**
 * The state a resume starts from. With a store, the store's own copy: for a run id, and for
 * a state given by value when the store holds that very state (a store holding a later
 * state of the run refuses the stale one).
 */
async function stateToResume(
  given: RunState | string,
  store: StoreCalls | undefined,
): Promise<{ state: unknown; source: StateSource }> {
  if (!store) return { state: given, source: "value" };
  if (typeof given === "string") {
    const stored = await store.get(given);
    if (!stored) throw new ResumeError(`the store holds no state for run ${given}`);
    return { state: stored, source: "store" };
  }
  const runId = (given as { runId?: unknown } | null)?.runId;
  if (typeof runId !== "string") return { state: given, source: "value" };
  const stored = await store.get(runId);
  if (!stored) return { state: given, source: "foreign" };
  if (stored.stateId !== (given as { stateId?: unknown }).stateId) {
    throw new ResumeError(
      `the store holds another state of run ${runId} than the one given (it was resumed or went on since); resume the store's copy with loop.resume("${runId}", decisions)`,
    );
  }
  if (!sameData(given, stored)) {
    // The store's copy is what would run: a given copy that differs (an edited `pending`, an
    // edited step) shows its caller, or a human, something else. Refused, not replaced.
    throw new ResumeError(
      `the state given for run ${runId} is not the one the store holds under its stateId: it was changed after it was written, so it shows something other than what would run; nothing ran. Resume the store's copy with loop.resume("${runId}", decisions)`,
    );
  }
  return { state: stored, source: "store" };
}

/** Claims a state for this resume, in the store when there is one; a second claim fails. */
async function claim<Deps>(loop: ResumeParts<Deps>, stateId: string): Promise<void> {
  const already = () =>
    new ResumeError(`state ${stateId} was already resumed; a state resumes once`);
  const { store } = loop.options;
  if (store) {
    if (!(await store.claim(stateId))) throw already();
    return;
  }
  loop.resumed ??= recentIds(REMEMBERED_RESUMES);
  if (!loop.resumed.add(stateId)) throw already();
}

/** Whether two values are the same JSON data (key order aside); a value JSON cannot write is not. */
function sameData(a: unknown, b: unknown): boolean {
  try {
    return canonicalJson(a) === canonicalJson(b);
  } catch {
    return false;
  }
}
