import { handedOptions } from "../options/handoffs.js";
import type { ResolvedOptions } from "../options/loop-options.js";
import { freezeJson } from "../tools/args.js";
import type { Message } from "../types/messages.js";
import { storedMessage } from "../util/content-parts.js";
import { callPolicy } from "../util/policy-call.js";
import type { OpenCall } from "./call-record.js";
import type { RunConfig, RunContext } from "./run-context.js";
import { handedOff } from "./run-record.js";
import type { TakenHandoff } from "./step.js";

/** Whether a call is to one of the agent's handoff tools (the one-handoff-per-step rule). */
export function isHandoffTool<Deps>(run: RunContext<Deps>, open: OpenCall<Deps>): boolean {
  const handoff = run.config.options.handoffs?.get(open.record.toolName);
  return handoff !== undefined && open.tool === handoff.tool;
}

/**
 * Hands the run to the target of `taken`: its transcript as the input filter writes it (a
 * throw, or anything but a transcript, is a `PolicyError`), then the target's configuration
 * (`configFor`) from the next step on.
 */
export async function handOff<Deps>(run: RunContext<Deps>, taken: TakenHandoff<Deps>) {
  const { handoff } = taken;
  const config = configFor(run.config, handoff.options());
  const filter = handoff.inputFilter;
  let messages: Message[] | undefined;
  if (filter) {
    const from = run.agent ?? "";
    const input = {
      messages: freezeJson(structuredClone(run.messages)) as readonly Message[],
      from,
      to: handoff.agent,
      runId: run.runId,
      deps: run.config.deps,
    };
    const given = callPolicy("inputFilter", taken.toolName, () => filter(input), readTranscript);
    messages = given instanceof Promise ? await given : (given as Message[]);
    run.abort.throwIfAborted();
  }
  handedOff(run, config, messages, taken);
}

/**
 * The configuration of a run once `agent` holds it: the agent's options (with the run's own
 * settings kept: `handedOptions`), its instructions and settings; the run's deps, output, stop
 * conditions and model timeout as they were.
 */
export function configFor<Deps>(
  config: RunConfig<Deps>,
  agent: ResolvedOptions<Deps>,
): RunConfig<Deps> {
  const options = handedOptions(config.options.root ?? config.options, agent);
  return Object.freeze({
    ...config,
    options,
    instructions: options.instructions,
    settings: options.settings,
  });
}

/** An input filter's answer: a non-empty transcript, each message stored as `run()` stores its input. */
function readTranscript(
  answer: unknown,
): { ok: true; value: Message[] } | { ok: false; problem: string } {
  if (!Array.isArray(answer) || answer.length === 0) {
    return { ok: false, problem: "must return the transcript: a non-empty array of messages" };
  }
  const roles = ["user", "assistant", "tool"];
  const bad = answer.findIndex(
    (message) => typeof message !== "object" || message === null || !roles.includes(message.role),
  );
  if (bad !== -1) {
    return {
      ok: false,
      problem: `returned message ${bad} without a valid role (user, assistant, tool)`,
    };
  }
  try {
    return { ok: true, value: structuredClone(answer as Message[]).map(storedMessage) };
  } catch (error) {
    return {
      ok: false,
      problem: `returned a transcript that cannot be stored: ${(error as Error).message}`,
    };
  }
}
