/**
 * A child process for the sub-agent tests. Modes:
 * - `resume-store <storeDir> <log>`: resumes run "team-run" from the file store, approving w1.
 * - `resume-value <stateFile> <log>`: resumes a paused state read from disk (unsigned, by
 *   value), each decision carrying its pending call's digest (no store: `allowReplay`).
 * - `crash <storeDir> <log>`: runs "team-run" with a store; the sub-agent's tool never returns.
 * Prints one JSON line with the outcome (or the error's class and message).
 */
import { readFileSync } from "node:fs";
import { fileRunStore } from "tollgate/file-store";
import { researchTeam } from "./research-team.js";

const [mode, path, log] = process.argv.slice(2) as [string, string, string];

const report = (promise: Promise<{ status: string; text: string }>) =>
  promise.then(
    (result) =>
      console.log(JSON.stringify({ status: result.status, text: result.text, pid: process.pid })),
    (error: Error) => console.log(JSON.stringify({ error: error.name, message: error.message })),
  );

if (mode === "resume-store") {
  const lead = researchTeam({ log, store: fileRunStore(path, { leaseMs: 300 }) });
  await report(lead.resume("team-run", { w1: { approve: true } }));
} else if (mode === "resume-value") {
  const state = JSON.parse(readFileSync(path, "utf8"));
  const decisions = Object.fromEntries(
    state.pending.map((p: { toolCallId: string; digest: string }) => [
      p.toolCallId,
      { approve: true, digest: p.digest },
    ]),
  );
  await report(researchTeam({ log, allowReplay: true }).resume(state, decisions));
} else if (mode === "crash") {
  const lead = researchTeam({ log, store: fileRunStore(path, { leaseMs: 300 }), hang: true });
  await lead.run("go", { runId: "team-run" });
}
