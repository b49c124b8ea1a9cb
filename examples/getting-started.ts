/**
 * Getting started: a run pauses for a human and is approved from a second process. The first
 * command runs the agent until its refund needs approval and leaves the paused run in a folder
 * (a `fileRunStore`); the second, a new Node process, finds the waiting call in that folder and
 * resumes the run with the human's decision.
 *
 *   npx tsx examples/getting-started.ts           # runs until the refund waits for approval
 *   npx tsx examples/getting-started.ts approve   # a second process approves it; the run ends
 *   npx tsx examples/getting-started.ts refuse    # (or refuses it; the model reads the reason)
 */
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { AgentLoop, tool } from "tollgate";
import { fileRunStore } from "tollgate/file-store";
import { functionProvider } from "tollgate/testing";
import { z } from "zod";

// Every process builds the same agent: the same tools, model and store.
const store = fileRunStore(join(tmpdir(), "tollgate-getting-started"));

const refund = tool({
  name: "refund",
  description: "Refund an order",
  input: z.object({ order: z.string(), amountEur: z.number().positive() }),
  needsApproval: ({ amountEur }) => amountEur > 50, // small refunds run at once
  execute: ({ order, amountEur }) => `refunded ${amountEur} EUR for order ${order}`,
});

// A stand-in model that reads the transcript, so whichever process runs the next step gets
// the right turn: first it asks for the refund, then it reports what came back.
const provider = functionProvider(({ messages }) => {
  const results = messages.flatMap((message) => (message.role === "tool" ? message.results : []));
  const [result] = results;
  if (!result) return { toolCalls: [{ name: "refund", args: { order: "A-17", amountEur: 80 } }] };
  return { text: result.isError ? `No refund: ${result.output}` : `Done: ${result.output}.` };
});

const loop = new AgentLoop({ provider, tools: [refund], store });

const [command] = process.argv.slice(2);
if (command === "approve" || command === "refuse") {
  // Process 2: find the paused run in the store and answer its pending call.
  const { runs } = await store.listPending();
  const run = runs.at(-1); // the newest paused run
  if (!run) {
    console.error("no run waits for approval: run this file without arguments first");
    process.exit(1);
  }
  const decisions = Object.fromEntries(
    run.pending.map((call) => [
      call.toolCallId,
      command === "approve"
        ? { approve: true as const }
        : { approve: false as const, reason: "refunds over 50 EUR need a receipt" },
    ]),
  );
  const result = await loop.resume(run.runId, decisions);
  console.log(`process ${process.pid} resumed ${run.runId}: ${result.status}`);
  console.log(`model: ${result.text}`);
} else {
  // Process 1: start fresh (forget runs an earlier start left waiting), then run until a pause.
  for (const old of (await store.listPending()).runs) await store.delete(old.runId);
  const result = await loop.run("Refund order A-17, 80 EUR.", {
    runId: `refund-${crypto.randomUUID().slice(0, 8)}`,
  });
  console.log(`process ${process.pid} ran ${result.state.runId}: ${result.status}`);
  if (result.status === "needs_approval") {
    for (const call of result.pending) {
      console.log(`  waits for approval: ${call.toolName} ${JSON.stringify(call.args)}`);
    }
    console.log(
      `approve it from another process: npx tsx ${relative(process.cwd(), process.argv[1] ?? "")} approve`,
    );
  }
}
