/**
 * Human in the loop across processes: one process runs the agent until a call needs approval
 * and stores the paused run; a second Node process (a worker, a web request, a day later)
 * resumes it with the human's decision. The state is signed, the decision is bound to the
 * exact call by its digest, and the store's claim makes sure the payment runs once.
 *
 *   npx tsx examples/approval-across-processes.ts
 */
import { execFileSync } from "node:child_process";
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { AgentLoop, type RunResult, tool } from "tollgate";
import { fileRunStore } from "tollgate/file-store";
import { functionProvider } from "tollgate/testing";
import { z } from "zod";

const SIGNING_KEY = "keep-me-in-a-secret-manager";

/** The same agent in every process: tools, model and store must match to resume. */
function paymentsAgent(folder: string) {
  const pay = tool({
    name: "pay",
    description: "Pay an invoice",
    input: z.object({ invoice: z.string(), amountEur: z.number().positive() }),
    needsApproval: ({ amountEur }) => amountEur > 100,
    execute: ({ invoice, amountEur }) => {
      appendFileSync(join(folder, "payments.log"), `${invoice} ${amountEur}\n`);
      return { paid: invoice, amountEur };
    },
  });
  // A stand-in model that answers from the transcript, so any process can take the next turn.
  const provider = functionProvider((request) =>
    request.messages.some((message) => message.role === "tool")
      ? { text: "Invoice INV-7 is paid." }
      : { toolCalls: [{ name: "pay", args: { invoice: "INV-7", amountEur: 250 } }] },
  );
  return new AgentLoop({
    provider,
    tools: [pay],
    store: fileRunStore(join(folder, "runs")),
    signingKey: SIGNING_KEY,
  });
}

/** Process 1: run until the payment needs approval; the paused state is in the store. */
export async function main(): Promise<{ paused: RunResult; resumed: string; payments: string[] }> {
  const folder = mkdtempSync(join(tmpdir(), "tollgate-approval-"));
  try {
    const paused = await paymentsAgent(folder).run("Pay invoice INV-7", { runId: "invoice-INV-7" });
    const [pending] = paused.pending ?? [];
    console.log(`paused: ${pending?.toolName} ${JSON.stringify(pending?.args)} needs approval`);

    // Process 2: a human approved; another Node process resumes the run from the store.
    const resumed = execFileSync(
      process.execPath,
      ["--import", "tsx", fileURLToPath(import.meta.url), "approve", folder, pending?.digest ?? ""],
      { encoding: "utf8" },
    ).trim();
    console.log(resumed);

    const payments = readFileSync(join(folder, "payments.log"), "utf8").trim().split("\n");
    console.log(`payments made: ${payments.length} (${payments.join(", ")})`);
    return { paused, resumed, payments };
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

/**
 * Process 2: resume the paused run from the store, by its id, with the human's decision. The
 * store's own copy is resumed (nothing the caller sends can change it), and the digest binds
 * the approval to the exact call the human saw.
 */
async function approve(folder: string, digest: string): Promise<void> {
  const loop = paymentsAgent(folder);
  const state = await fileRunStore(join(folder, "runs")).get("invoice-INV-7");
  if (!state?.pending) throw new Error("no paused run to approve");
  const decisions = Object.fromEntries(
    state.pending.map((call) => [call.toolCallId, { approve: true as const, digest }]),
  );
  const result = await loop.resume("invoice-INV-7", decisions);
  console.log(`resumed in process ${process.pid}: ${result.status}: ${result.text}`);
  // A second resume (a retried request, a second worker) runs nothing: the state moved on.
  const again = await loop.resume(state, decisions).catch((error: Error) => error.message);
  console.log(`resumed again: ${again}`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const [mode, folder, digest] = process.argv.slice(2);
  if (mode === "approve" && folder) await approve(folder, digest ?? "");
  else await main();
}
