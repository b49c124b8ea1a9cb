import { ResumeError } from "../errors.js";
import { findAgent, handedOptions } from "../options/handoffs.js";
import type { ResolvedOptions } from "../options/loop-options.js";
import { isPaused } from "../state/run-state.js";

/**
 * The options a state resumes with: those of the agent holding it (`state.agent`), found among
 * the agents `loop` hands off to, with the run's own settings kept from `loop`
 * (`handedOptions`); `loop`'s own for a state of no agent or of `loop` itself. A state held by
 * an agent `loop` does not reach is a `ResumeError`. The state is not trusted yet: its
 * signature or digests, checked next with `loop`'s key, cover `agent`.
 */
export function agentOfState<Deps>(
  loop: ResolvedOptions<Deps>,
  state: unknown,
): ResolvedOptions<Deps> {
  const agent = (state as { agent?: unknown } | null)?.agent;
  const { steps, status } = (state ?? {}) as { steps?: unknown; status?: unknown };
  const open = isPaused(status) || status === "running";
  const last = Array.isArray(steps) ? (steps[steps.length - 1] as { agent?: unknown }) : undefined;
  if (open && last?.agent !== undefined && last.agent !== agent) {
    // The open step is the holding agent's: a handoff takes effect only once its step closed.
    throw new ResumeError(
      `the state's last step was run by the agent ${JSON.stringify(last.agent)}, but the state says ${JSON.stringify(agent)} holds the run; it was changed after it was written`,
    );
  }
  if (agent === undefined || agent === loop.name) return loop;
  if (typeof agent !== "string") throw new ResumeError("the state's `agent` must be a string");
  const found = findAgent(loop, agent);
  if (!found) {
    const own = loop.name === undefined ? "this loop" : `this loop ("${loop.name}")`;
    throw new ResumeError(
      `the state is held by the agent "${agent}", which ${own} does not hand off to; resume it on a loop that has "${agent}" among its handoffs (or on "${agent}" itself)`,
    );
  }
  return handedOptions(loop, found);
}
