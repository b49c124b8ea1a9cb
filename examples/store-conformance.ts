/**
 * A store as an approval inbox sees it: `listPending` pages through the paused runs with their
 * calls, `delete` removes a run nobody is running. Then `runStoreConformance` checks a store
 * against the whole `RunStore` contract, here `memoryRunStore`; run it on your own store the
 * same way, inside your test runner.
 *
 *   npx tsx examples/store-conformance.ts
 */
import { pathToFileURL } from "node:url";
import { AgentLoop, type FullRunStore, memoryRunStore, tool } from "tollgate";
import { runStoreConformance, scriptedProvider } from "tollgate/testing";
import { z } from "zod";

/** The inbox: every paused run's waiting calls, oldest first, a page at a time. */
export async function pendingCalls(store: FullRunStore): Promise<string[]> {
  const listed: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await store.listPending({ limit: 50, ...(cursor ? { cursor } : {}) });
    for (const run of page.runs) {
      for (const call of run.pending) {
        listed.push(`${run.runId} waits: ${call.toolName} ${JSON.stringify(call.args)}`);
      }
    }
    cursor = page.cursor;
  } while (cursor);
  return listed;
}

/** Every check of the `RunStore` contract on `memoryRunStore`: each throws when the store fails it. */
export async function checkMemoryStore(): Promise<{ passed: number; failed: number }> {
  let [passed, failed] = [0, 0];
  for (const check of runStoreConformance((options) => memoryRunStore(options))) {
    try {
      await check.run();
      passed++;
    } catch (error) {
      failed++;
      console.log(`FAIL ${check.name}: ${(error as Error).message}`);
    }
  }
  return { passed, failed };
}

const refund = tool({
  name: "refund",
  input: z.object({ order: z.string(), amountEur: z.number() }),
  needsApproval: true,
  execute: ({ order }) => `refunded ${order}`,
});

export async function main(): Promise<{ listed: string[]; passed: number; failed: number }> {
  const store = memoryRunStore();
  const loop = new AgentLoop({
    provider: scriptedProvider([
      { toolCalls: [{ name: "refund", args: { order: "A-1", amountEur: 30 } }] },
      { toolCalls: [{ name: "refund", args: { order: "B-2", amountEur: 90 } }] },
    ]),
    tools: [refund],
    store,
  });
  await loop.run("Refund A-1", { runId: "refund-A-1" });
  await loop.run("Refund B-2", { runId: "refund-B-2" });
  const listed = await pendingCalls(store);
  for (const line of listed) console.log(line);

  // A run nobody will approve: gone from the store (false while a process still runs it).
  console.log(`deleted refund-B-2: ${await store.delete("refund-B-2")}`);
  console.log(`still pending: ${(await pendingCalls(store)).join("; ")}`);

  const { passed, failed } = await checkMemoryStore();
  console.log(`memoryRunStore: ${passed} checks passed, ${failed} failed`);
  return { listed, passed, failed };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await main();
