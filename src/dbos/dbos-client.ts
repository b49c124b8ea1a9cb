import type { DBOSClient } from "@dbos-inc/dbos-sdk";
import type { Message, RunResult } from "tollgate";
import { checkKeys } from "../util/option-keys.js";
import { kindOf } from "../util/values.js";
import { workflowName } from "./dbos-agent.js";
import { type DbosRuns, dbosRuns } from "./dbos-runs.js";

/** Options of `dbosAgentClient`. */
export interface DbosAgentClientOptions {
  /** The agent's name, as its workers gave it to `dbosAgent()`. */
  name: string;
  /** The queue the workers registered (`DBOS.registerQueue()`): `start()` enqueues runs there. */
  queue: string;
  /**
   * The application version a run needs (DBOS's `appVersion`). Without it, a worker of the
   * latest registered version dequeues it.
   */
  appVersion?: string | undefined;
}

/** The runs of a `dbosAgent`, from a process that runs none of them (a web server). */
export interface DbosAgentClient extends DbosRuns {
  /**
   * Enqueues the run `runId` on the agent's queue; resolves once it is enqueued. A worker
   * running the agent dequeues and runs it. Enqueuing the same `runId` again starts nothing.
   */
  start(runId: string, input: string | Message[]): Promise<void>;
}

/**
 * The runs of a `dbosAgent`, through a `DBOSClient` (a process that does not launch DBOS and
 * runs no workflow: a web server, an inbox): `start()` enqueues a run on the queue the agent's
 * workers declare, and `waiting()`, `decide()` and `result()` mean what they mean on the
 * agent itself.
 *
 * @example
 * const client = await DBOSClient.create({ systemDatabaseUrl });
 * const support = dbosAgentClient(client, { name: "support", queue: "agents" });
 * await support.start("ticket-42", "Refund order 7");
 */
export function dbosAgentClient(
  client: DBOSClient,
  options: DbosAgentClientOptions,
): DbosAgentClient {
  checkKeys("dbosAgentClient() options", options, ["name", "queue", "appVersion"]);
  for (const key of ["name", "queue", "appVersion"] as const) {
    const value = options[key];
    if ((key !== "appVersion" || value !== undefined) && (typeof value !== "string" || !value)) {
      throw new TypeError(
        `dbosAgentClient(): ${key} must be a non-empty string, got ${kindOf(value)}`,
      );
    }
  }
  if (typeof client?.enqueue !== "function" || typeof client.getEvent !== "function") {
    throw new TypeError(
      `dbosAgentClient(): expected a DBOSClient (await DBOSClient.create({ systemDatabaseUrl })), got ${kindOf(client)}`,
    );
  }
  const runs = dbosRuns("dbosAgentClient()", {
    getEvent: (runId, key) => client.getEvent(runId, key, 0),
    send: (runId, message, topic, key) => client.send(runId, message, topic, key),
    status: async (runId) => (await client.getWorkflow(runId))?.status,
    ended: (runId) => client.retrieveWorkflow<RunResult>(runId).getResult(),
  });
  return {
    ...runs,
    async start(runId, input) {
      if (typeof runId !== "string" || runId === "") {
        throw new TypeError(
          `dbosAgentClient().start(): runId must be a run id, got ${kindOf(runId)}`,
        );
      }
      await client.enqueue(
        {
          queueName: options.queue,
          workflowName: workflowName(options.name),
          workflowID: runId,
          ...(options.appVersion !== undefined && { appVersion: options.appVersion }),
        },
        runId,
        input,
      );
    },
  };
}
