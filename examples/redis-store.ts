/**
 * Runs in Redis: one loop pauses a refund for approval and its state lands in Redis; a second
 * loop, with its own client (another worker, another host), lists it in the inbox and resumes
 * it with the human's decision. Needs a server:
 *
 *   TOLLGATE_REDIS_URL=redis://127.0.0.1:6379 npx tsx examples/redis-store.ts
 */
import { Redis } from "ioredis";
import { AgentLoop, type RunStore, tool } from "tollgate";
import { redisRunStore } from "tollgate/redis";
import { functionProvider } from "tollgate/testing";
import { z } from "zod";

/** The same agent on every worker: tools, model and signing key must match to resume. */
function refundsAgent(store: RunStore) {
  const refund = tool({
    name: "refund",
    input: z.object({ order: z.string(), amountEur: z.number().positive() }),
    needsApproval: ({ amountEur }) => amountEur > 50,
    execute: ({ order }) => ({ refunded: order }),
  });
  const provider = functionProvider((request) =>
    request.messages.some((message) => message.role === "tool")
      ? { text: "Order A-17 is refunded." }
      : { toolCalls: [{ name: "refund", args: { order: "A-17", amountEur: 80 } }] },
  );
  return new AgentLoop({ provider, tools: [refund], store, signingKey: "from-a-secret-manager" });
}

export async function main(url: string): Promise<void> {
  const prefix = `tollgate-example:${process.pid}:`; // the example's own keys, removed at the end
  const worker1 = new Redis(url);
  const worker2 = new Redis(url);
  try {
    // Worker 1 runs until the refund needs approval: the paused run is in Redis.
    const first = refundsAgent(redisRunStore(worker1, { prefix }));
    const paused = await first.run("Refund order A-17", { runId: "refund-A-17" });
    console.log(`worker 1: ${paused.status}`);

    // The inbox reads the paused runs from Redis, oldest first.
    const store = redisRunStore(worker2, { prefix, finishedTtlMs: 24 * 60 * 60 * 1000 });
    const { runs } = await store.listPending({ limit: 20 });
    for (const run of runs) {
      for (const call of run.pending) {
        console.log(`inbox: ${run.runId} waits: ${call.toolName} ${JSON.stringify(call.args)}`);
      }
    }

    // A human approved: worker 2, with its own client, resumes the run from the store.
    const [call] = runs[0]?.pending ?? [];
    if (!call) throw new Error("no paused run in the inbox");
    const second = refundsAgent(store);
    const done = await second.resume("refund-A-17", {
      [call.toolCallId]: { approve: true, digest: call.digest },
    });
    console.log(`worker 2: ${done.status}: ${done.text}`);

    // The finished state expires by itself (finishedTtlMs); paused and running ones never do.
    const ttlMs = await worker2.pttl(`${prefix}{run:refund-A-17}:state`);
    console.log(`finished state expires in about ${Math.round(ttlMs / 3_600_000)} h`);
  } finally {
    const keys = await worker1.keys(`${prefix}*`);
    if (keys.length > 0) await worker1.del(...keys);
    await Promise.all([worker1.quit(), worker2.quit()]);
  }
}

const url = process.env.TOLLGATE_REDIS_URL;
if (url) await main(url);
else console.log("skipped: set TOLLGATE_REDIS_URL to a Redis server to run this example");
