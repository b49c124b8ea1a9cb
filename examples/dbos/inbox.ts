/**
 * The inbox's side of examples/dbos/main.ts, as a process that runs no workflow (a web server)
 * would do it: only a DBOSClient on DBOS's database. The run is enqueued on the queue the
 * workers registered (`DBOS.registerQueue("agents")`), and one of them runs it.
 */
import { DBOSClient } from "@dbos-inc/dbos-sdk";
import { dbosAgentClient } from "tollgate/dbos";

/** Starts a refund run on the workers' queue, approves its pause, and prints its result. */
export async function refundFromInbox(systemDatabaseUrl: string, runId: string): Promise<void> {
  const client = await DBOSClient.create({ systemDatabaseUrl });
  try {
    const inbox = dbosAgentClient(client, { name: "support", queue: "agents" });
    await inbox.start(runId, "Please refund order 7");
    const pause = await inbox.waiting(runId, { timeoutMs: 10_000 });
    const approvals = Object.fromEntries(
      (pause?.pending ?? []).map((call) => [
        call.key,
        { approve: true as const, digest: call.digest },
      ]),
    );
    console.log("inbox decided:", await inbox.decide(runId, pause!.pause, approvals));
    const result = await inbox.result(runId, { timeoutMs: 10_000 });
    console.log("inbox result:", result.status, result.text);
  } finally {
    await client.destroy();
  }
}
