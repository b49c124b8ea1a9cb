import { handedOptions } from "../options/handoffs.js";
import type { ResolvedOptions } from "../options/loop-options.js";
import { freezeJson } from "../tools/args.js";
import type { Message } from "../types/messages.js";
import { callPolicy } from "../util/policy-call.js";
import { loadMessageSchema, messageSchemaReady } from "./message-schema.js";
import { type Read, readMessages } from "./read-messages.js";
import type { RunConfig, RunContext } from "./run-context.js";
import { handedOff } from "./run-record.js";
import type { TakenHandoff } from "./step.js";

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
    if (!messageSchemaReady()) {
      await loadMessageSchema(); // to check the filter's messages
      run.abort.throwIfAborted();
    }
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

/**
 * An input filter's answer, read as `prepareStep`'s and a pre-model hook's messages are
 * (`readMessages`: each message stored, the state's message schema, the transcript's
 * invariant), copied into a list the run can go on writing to.
 */
function readTranscript(answer: unknown): Read<Message[]> {
  const read = readMessages(answer);
  if (!read.ok) return { ok: false, problem: `returned messages that ${read.problem}` };
  return { ok: true, value: [...read.value] };
}
