import type { Message } from "./messages.js";

/** What an input filter is given: the transcript at the handoff (a frozen copy) and who hands to whom. */
export interface HandoffInput<Deps = unknown> {
  readonly messages: readonly Message[];
  /** The agent handing the run over. */
  readonly from: string;
  /** The agent taking it. */
  readonly to: string;
  readonly runId: string;
  readonly deps: Deps;
}

/**
 * Writes the transcript a handoff hands over: the run goes on with what it returns (the steps
 * keep the record of what came before). A throw, or anything but a transcript, rejects the run
 * with `PolicyError`.
 */
export type HandoffInputFilter<Deps = unknown> = (
  input: HandoffInput<Deps>,
) => Message[] | Promise<Message[]>;

/** An agent loop as a handoff target: any `AgentLoop` (it has a `name`). */
export interface HandoffAgent {
  readonly name: string | undefined;
}

/** How `handoff()` describes one handoff. */
export interface HandoffOptions<Deps = unknown> {
  /** The target's name; required when the target is given as a function, and then checked against it. */
  name?: string | undefined;
  /** Added to the handoff tool's description: when the model should hand over. */
  description?: string | undefined;
  /** The transcript handed over (default: all of it). `removeToolCalls` drops tool calls and results. */
  inputFilter?: HandoffInputFilter<Deps> | undefined;
  /** The handoff tool's name (default `transfer_to_<name>`). */
  toolName?: string | undefined;
}

/** One handoff as `handoff()` built it, for a loop's `handoffs`. */
export interface Handoff<Deps = unknown> {
  readonly target: HandoffAgent | (() => HandoffAgent);
  readonly options: Readonly<HandoffOptions<Deps>>;
}
