/**
 * A child process for the resume tests. Modes:
 * - `resume <stateFile> <log>`: reads a paused state from disk and approves every pending call,
 *   each decision carrying its call's digest (the state is unsigned and came by value; with no
 *   store to claim it, the loop opts in with `allowReplay`).
 * - `crash <storeDir> <log>`: runs a loop whose first calls hang, printing "started" once the tool runs.
 * Prints one JSON line with the outcome.
 */
import { readFileSync } from "node:fs";
import { AgentLoop, tool } from "tollgate";
import { fileRunStore } from "tollgate/file-store";
import { scriptedProvider } from "tollgate/testing";
import { z } from "zod";
import { approvalAgent } from "./approval-agent.js";

const [mode, path, log] = process.argv.slice(2) as [string, string, string];

if (mode === "resume") {
  const state = JSON.parse(readFileSync(path, "utf8"));
  const loop = approvalAgent({ log, allowReplay: true });
  const decisions = Object.fromEntries(
    state.pending.map((p: { toolCallId: string; digest: string }) => [
      p.toolCallId,
      { approve: true, digest: p.digest },
    ]),
  );
  const result = await loop.resume(state, decisions);
  console.log(JSON.stringify({ status: result.status, text: result.text, pid: process.pid }));
} else if (mode === "crash") {
  const { appendFileSync } = await import("node:fs");
  const hang = (name: string, idempotent: boolean) =>
    tool({
      name,
      idempotent,
      input: z.object({}),
      execute: () => {
        appendFileSync(log, `${name}\n`);
        console.log("started");
        return new Promise(() => {});
      },
    });
  const loop = new AgentLoop({
    provider: scriptedProvider([
      {
        toolCalls: [
          { id: "w1", name: "write_once" },
          { id: "r1", name: "read_again" },
        ],
      },
    ]),
    tools: [hang("write_once", false), hang("read_again", true)],
    store: fileRunStore(path, { leaseMs: 300 }),
  });
  await loop.run("go", { runId: "crashing-run" });
}
