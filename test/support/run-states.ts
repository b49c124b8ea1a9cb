import { randomUUID } from "node:crypto";
import type { RunState } from "tollgate";

/**
 * A minimal paused state for a run, for store tests. Stores keep states as opaque JSON, so this
 * is not a full `RunState`; the text has quotes, escapes and non-ASCII to catch lossy encodings.
 */
export function stateOf(runId: string, note: string): RunState {
  const state = {
    version: 1,
    stateId: randomUUID(),
    runId,
    status: "needs_approval",
    messages: [{ role: "user", content: `${note}: ünïcode ✓ "quotes" \\ back\nslash` }],
    steps: [],
    usage: { inputTokens: 1, outputTokens: 2, totalTokens: 3 },
  };
  return state as unknown as RunState;
}
