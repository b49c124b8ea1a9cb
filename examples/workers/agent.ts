/**
 * The agent every worker runs: a stand-in model that answers from the transcript (so any
 * process can take a run's next turn) and three tools that append every execution's start and
 * end to a trace file, so a test can count what ran.
 *
 * - `charge` is not idempotent: a crash while it ran leaves its outcome unknown.
 * - `lookup` is `idempotent: true`: a crash while it ran runs it again.
 * - `refund` needs a human's approval.
 *
 * While a file `hold-<order>` exists in the trace's folder, `charge` and `lookup` wait inside
 * their call for it to go: a test uses this to know which worker is mid-tool, and kill it there.
 */
import { appendFileSync, existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { AgentLoop, type LoopListener, type Message, type RunStore, tool } from "tollgate";
import { functionProvider } from "tollgate/testing";
import { z } from "zod";

/** Where the agent's tools leave their trace (one line per start and end of a call). */
export interface AgentOptions {
  /** The shared store, the same for every worker. */
  store: RunStore;
  /** The file each tool call appends `start|end <tool> <order> <pid>` to. */
  traceFile: string;
  /** Every event of every run (the workers publish them for an inbox in another process). */
  onEvent?: LoopListener;
}

/** A trace line: which tool, for which order, started or ended, in which process. */
function trace(file: string, what: "start" | "end", name: string, order: string): void {
  appendFileSync(file, `${what} ${name} ${order} ${process.pid}\n`);
}

/** Waits while the test holds the order (`hold-<order>` exists next to the trace file). */
async function heldWhile(file: string, order: string): Promise<void> {
  const hold = join(dirname(file), `hold-${order}`);
  while (existsSync(hold)) await sleep(25);
}

/**
 * The agent's tools, tracing to `traceFile`. An approval inbox takes them too, to check edited
 * args against their schemas (it never runs them).
 */
export function ordersTools(traceFile: string) {
  const traced = <A extends { order: string }>(
    name: string,
    run: (args: A) => unknown,
    hold: boolean,
  ) => {
    return async (args: A) => {
      trace(traceFile, "start", name, args.order);
      if (hold) await heldWhile(traceFile, args.order);
      const output = run(args);
      trace(traceFile, "end", name, args.order);
      return output;
    };
  };
  const charge = tool({
    name: "charge",
    description: "Charge the customer for an order (not safe to repeat)",
    input: z.object({ order: z.string(), amountEur: z.number().positive() }),
    execute: traced(
      "charge",
      ({ order, amountEur }) => `charged ${amountEur} EUR for ${order}`,
      true,
    ),
  });
  const lookup = tool({
    name: "lookup",
    description: "Look an order up (safe to repeat)",
    idempotent: true,
    input: z.object({ order: z.string() }),
    execute: traced("lookup", ({ order }) => `${order}: 2 items, shipped`, true),
  });
  const refund = tool({
    name: "refund",
    description: "Refund an order (a human approves)",
    needsApproval: true,
    input: z.object({ order: z.string() }),
    execute: traced("refund", ({ order }) => `refunded ${order}`, false),
  });
  return [charge, lookup, refund] as const;
}

/** The order agent: `order <id>` charges and looks up; `refund <id>` asks for a refund. */
export function ordersAgent({ store, traceFile, onEvent }: AgentOptions): AgentLoop {
  const provider = functionProvider((request) => {
    const prompt = firstPrompt(request.messages);
    const [verb = "", order = ""] = prompt.split(" ");
    const results = request.messages.flatMap((m) => (m.role === "tool" ? m.results : []));
    if (results.length > 0) {
      return { text: `${verb} ${order}: ${results.map((r) => String(r.output)).join("; ")}` };
    }
    if (verb === "refund") return { toolCalls: [{ name: "refund", args: { order } }] };
    return {
      toolCalls: [
        { name: "charge", args: { order, amountEur: 30 } },
        { name: "lookup", args: { order } },
      ],
    };
  });
  return new AgentLoop({ provider, tools: [...ordersTools(traceFile)], store, onEvent });
}

/** The text of the run's first user message. */
function firstPrompt(messages: readonly Message[]): string {
  const first = messages.find((m) => m.role === "user");
  return typeof first?.content === "string" ? first.content : "";
}
