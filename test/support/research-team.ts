/**
 * A lead agent with a `writer` sub-agent, used by the sub-agent tests from several processes:
 * the same tools and answers in every process, so a state written by one can be resumed by
 * another. `write_file` runs are appended to a log file, which is how the tests count
 * executions across processes. Both models answer from the transcript.
 */
import { appendFileSync } from "node:fs";
import { AgentLoop, type RunStore, tool } from "tollgate";
import { functionProvider } from "tollgate/testing";
import { z } from "zod";

export function researchTeam(options: {
  log: string;
  store?: RunStore;
  /** Resumes states by value without a store (the lead's `allowReplay`). */
  allowReplay?: boolean;
  /** The writer's tool needs no approval and never returns (a process to kill mid-call). */
  hang?: boolean;
}) {
  const writeFile = tool({
    name: "write_file",
    input: z.object({ path: z.string() }),
    needsApproval: !options.hang,
    execute: ({ path }) => {
      appendFileSync(options.log, `write ${path}\n`);
      if (options.hang) {
        console.log("started");
        return new Promise(() => {});
      }
      return `wrote ${path}`;
    },
  });
  const writer = new AgentLoop({
    provider: functionProvider((request) => {
      const last = request.messages[request.messages.length - 1];
      return last?.role === "tool"
        ? { text: `writer: ${last.results[0]!.output}` }
        : { toolCalls: [{ id: "w1", name: "write_file", args: { path: "notes.md" } }] };
    }),
    tools: [writeFile],
  });
  const lead = new AgentLoop({
    provider: functionProvider((request) => {
      const last = request.messages[request.messages.length - 1];
      return last?.role === "tool"
        ? { text: `lead: ${last.results[0]!.output}` }
        : { toolCalls: [{ id: "p1", name: "writer", args: { prompt: "write the notes" } }] };
    }),
    tools: [writer.asTool({ name: "writer", description: "Writes files" })],
    ...(options.store ? { store: options.store } : {}),
    ...(options.allowReplay ? { allowReplay: true } : {}),
  });
  return lead;
}
