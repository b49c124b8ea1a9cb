import { AgentLoop, type AgentLoopOptions, type LoopPolicy, tool } from "tollgate";
import { type ScriptedTurn, scriptedProvider } from "tollgate/testing";
import { z } from "zod";

/** A small notes agent for decision tests: read, delete (the policy asks a human), a client-side pick, and a hook that blocks /etc. */
export const read = tool({
  name: "read_note",
  input: z.object({ path: z.string() }),
  execute: ({ path }) => `contents of ${path}`,
});
export const remove = tool({
  name: "delete_note",
  input: z.object({ path: z.string() }),
  execute: ({ path }) => `deleted ${path}`,
});
export const pick = tool({
  name: "pick_file",
  input: z.object({}),
  output: z.object({ path: z.string() }),
});
export const send = tool({
  name: "send_note",
  input: z.object({ to: z.string() }),
  execute: () => "sent",
});

/** Asks a human for delete_note; denies send_note to anyone outside example.com. */
export const notesPolicy: LoopPolicy = {
  decideToolCall: ({ call }) => {
    if (call.name === "delete_note") return "NEEDS_APPROVAL";
    if (
      call.name === "send_note" &&
      !String((call.args as { to: string }).to).endsWith("@example.com")
    ) {
      return { decision: "DENY", reason: "outside recipients are not allowed" };
    }
    return "ALLOW";
  },
};

/** A loop over the notes tools playing `turns`. */
export function notesLoop(turns: ScriptedTurn[], options: Partial<AgentLoopOptions> = {}) {
  return new AgentLoop({
    provider: scriptedProvider(turns),
    tools: [read, remove, pick, send],
    policy: notesPolicy,
    preToolCall: [
      ({ name, args }) =>
        name === "read_note" && String((args as { path: string }).path).startsWith("/etc")
          ? { block: "/etc is off limits" }
          : undefined,
    ],
    ...options,
  });
}
