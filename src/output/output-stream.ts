import type { ModelStreamPart } from "../types/provider.js";
import type { ResolvedOutput } from "./output-option.js";

type OutputDeltas = typeof import("./output-deltas.js");

let loaded: OutputDeltas | undefined;

/**
 * Whether the reader of a streamed final answer (`output-delta` events, with the partial JSON
 * parser) has loaded. It loads on a run's first model call with `output`: a loop without
 * structured output never loads it.
 */
export function outputStreamReady(): boolean {
  return loaded !== undefined;
}

/** Loads the reader of a streamed final answer; `outputDeltas` may be called once it resolves. */
export function loadOutputStream(): Promise<void> {
  return import("./output-deltas.js").then((module) => {
    loaded = module;
  });
}

/**
 * Follows one model response's stream for the final answer taking shape (see
 * `output-deltas.ts`). Every caller is a model call of a run with `output`, made after
 * `loadOutputStream`.
 */
export function outputDeltas(output: ResolvedOutput): (part: ModelStreamPart) => unknown {
  if (!loaded) {
    throw new Error("tollgate: the structured output stream was read before it loaded (a bug)");
  }
  return loaded.outputDeltas(output);
}
