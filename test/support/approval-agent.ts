/**
 * An agent used by the resume tests from several processes: the same tools and script in every
 * process, so a state written by one can be resumed by another. Tool runs are appended to a
 * log file, which is how the tests count executions across processes.
 */
import { appendFileSync } from "node:fs";
import { AgentLoop, type RunStore, tool } from "tollgate";
import { functionProvider } from "tollgate/testing";
import { z } from "zod";

export function approvalAgent(options: {
  log: string;
  store?: RunStore;
  signingKey?: string;
  /** Resumes states by value without a store (the loop's `allowReplay`). */
  allowReplay?: boolean;
  hangMs?: number;
}) {
  const record = (line: string) => appendFileSync(options.log, `${line}\n`);
  const transfer = tool({
    name: "transfer",
    input: z.object({ to: z.string(), amount: z.number() }),
    needsApproval: true,
    execute: async ({ to, amount }) => {
      record(`transfer ${to} ${amount}`);
      if (options.hangMs) await new Promise((resolve) => setTimeout(resolve, options.hangMs));
      return `sent ${amount} to ${to}`;
    },
  });
  const lookup = tool({
    name: "lookup",
    input: z.object({ who: z.string() }),
    idempotent: true,
    execute: async ({ who }) => {
      record(`lookup ${who}`);
      if (options.hangMs) await new Promise((resolve) => setTimeout(resolve, options.hangMs));
      return `${who} is known`;
    },
  });
  // Answers from the transcript, so a process that resumes mid-run gets the right turn.
  const provider = functionProvider((request) =>
    request.messages.some((message) => message.role === "tool")
      ? { text: "done" }
      : { toolCalls: [{ id: "t1", name: "transfer", args: { to: "alice", amount: 10 } }] },
  );
  return new AgentLoop({
    provider,
    tools: [transfer, lookup],
    ...(options.store ? { store: options.store } : {}),
    ...(options.signingKey ? { signingKey: options.signingKey } : {}),
    ...(options.allowReplay ? { allowReplay: true } : {}),
  });
}
