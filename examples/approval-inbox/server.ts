/**
 * The approval inbox with its demo agent, in one process: two runs wait for approval in a
 * memory store; open the printed URL, approve, edit or refuse their calls, and watch each run
 * finish live. Stop it with Ctrl-C.
 *
 *   npx tsx examples/approval-inbox/server.ts [port]
 */
import { memoryRunStore } from "tollgate";
import { demoAgent, demoTools, seedRuns } from "./demo-agent.js";
import { inProcessWorker } from "./in-process.js";
import { createInbox } from "./inbox.js";

const store = memoryRunStore(); // or fileRunStore(dir), or a Redis or Postgres store
const { loop } = demoAgent(store);
await seedRuns(loop); // two runs now wait for approval in the store

const inbox = createInbox({
  store, // lists the waiting runs and holds the digests decisions carry
  tools: demoTools, // edited args are checked against these schemas first
  ...inProcessWorker(loop), // resume(runId, decisions) and events(runId)
});
const url = await inbox.listen(Number(process.argv[2] ?? 8787)); // 127.0.0.1 only
console.log(`approval inbox: ${url}`);
process.once("SIGINT", () => void inbox.close());
