import { tool } from "tollgate";
import { z } from "zod";

/**
 * A tool named `hang` that starts, records its signal, and never finishes on its own: for
 * tests of what aborts a run mid-tool. `state.started` resolves once it has started.
 */
export function hangingTool() {
  const state: { started: Promise<void>; signal?: AbortSignal } = { started: Promise.resolve() };
  let markStarted!: () => void;
  state.started = new Promise((resolve) => (markStarted = resolve));
  const hang = tool({
    name: "hang",
    input: z.object({}),
    execute: (_args, ctx) => {
      state.signal = ctx.signal;
      markStarted();
      return new Promise(() => {});
    },
  });
  return { hang, state };
}
