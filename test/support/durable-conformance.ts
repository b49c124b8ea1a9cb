/**
 * The conformance suite every durable backend of tollgate must pass (`tollgate/dbos`, and any
 * other engine after it), proven with real worker processes and SIGKILL:
 *
 * - a worker killed while a non-idempotent tool runs: restarted under its executor id, the run
 *   finishes, the tool ran once, and the model read "outcome unknown" for it;
 * - killed while an idempotent tool runs: it runs again, once; the calls settled before keep
 *   their results;
 * - a decision delivered twice runs once; a forged one (wrong digest) and a stale one (made for
 *   an earlier pause of the run) run nothing and the run keeps waiting, until the right one;
 * - many runs at once across several workers with no crash: every call ran once and the model
 *   read its own result (an engine that ends attempts on its own must not drop calls as
 *   "outcome unknown");
 * - many runs across several workers with random approvals and denials, one worker SIGKILLed in
 *   the middle and restarted: every run finishes, no non-idempotent call ran twice, every
 *   approved refund ran once and every denied one never.
 *
 * The oracle is a table of the suite's own, `tollgate_conformance_calls`: every tool of the
 * conformance agent inserts its row there before it does anything else, so the table counts
 * what really ran, whatever the loop or the engine recorded. Like `runStoreConformance`, the
 * suite is a list of named checks (wrap each in your runner's test); it imports no test runner,
 * so a worker process can import `conformanceAgent` from here.
 */
import { setTimeout as sleep } from "node:timers/promises";
import fc from "fast-check";
import { type AgentLoopOptions, type Message, type RunResult, tool } from "tollgate";
import { functionProvider } from "tollgate/testing";
import { z } from "zod";

/** Runs SQL on the PostgreSQL database that holds the suite's tables; resolves the rows. */
export type Query = (sql: string, params?: unknown[]) => Promise<Record<string, unknown>[]>;

/** A worker process of the backend, running the conformance agent. */
export interface DurableWorker {
  readonly executorId: string;
  readonly pid: number;
  /** Sends the process a signal (`SIGKILL` mid-tool, `SIGTERM` to stop it). */
  kill(signal: NodeJS.Signals): void;
  /** Resolves once the process has exited. */
  readonly exited: Promise<void>;
  /** What it printed so far (shown when a check fails). */
  output(): string;
}

/** One call a paused run waits on, as the backend's client reports it. */
export interface DurableWaitingCall {
  /** The key its decision goes under. */
  key: string;
  toolName: string;
  /** The digest a decision for exactly this call in exactly this pause carries. */
  digest: string;
}

/** What a paused run waits for. */
export interface DurablePause {
  /** The run's pauses counted from 0. */
  pause: number;
  pending: DurableWaitingCall[];
}

/** A decision per key, each with the digest of the call it was made for. */
export type DurableDecisions = Record<
  string,
  { approve: boolean; digest: string; reason?: string | undefined }
>;

/** How the suite drives runs: from the test process, never running them itself. */
export interface DurableClient {
  /** Starts a run, on a worker (not in the test process); resolves once it is started. */
  start(runId: string, input: string): Promise<void>;
  /** The pause the run waits in now, waiting up to `timeoutMs` for one to come. */
  waiting(runId: string, options: { timeoutMs: number }): Promise<DurablePause | undefined>;
  /** Delivers decisions for a pause (what it resolves with is the backend's). */
  decide(runId: string, pause: number, decisions: DurableDecisions): Promise<unknown>;
  /** The run's result once it ends. */
  result(runId: string): Promise<RunResult>;
}

/** What a backend gives the suite. */
export interface DurableBackend {
  /** Its name, in run ids and messages. */
  name: string;
  /**
   * Starts a worker process under this executor id (a restarted worker gets the id of the one
   * it replaces, as a supervisor would restart it); resolves once it is ready for runs. The
   * worker runs `conformanceAgent` under the agent name `CONFORMANCE_AGENT`.
   */
  startWorker(executorId: string): Promise<DurableWorker>;
  client: DurableClient;
  /** The database of the suite's tables, the same the workers' `conformanceAgent` writes to. */
  query: Query;
  /**
   * Why the run's latest refused decision was refused, if one was (two refusals of a pause for
   * different reasons must read differently): the suite then also checks that a forged and a
   * stale decision were each seen and refused while the run kept waiting. Optional.
   */
  lastRefusal?(runId: string): Promise<string | undefined>;
}

/** One check: `run` resolves when the backend keeps the guarantee, rejects saying what broke. */
export interface DurableCheck {
  readonly name: string;
  /** How long the check may take, for the test runner. */
  readonly timeoutMs: number;
  readonly run: () => Promise<void>;
}

/** Options of `durableConformance`. */
export interface DurableConformanceOptions {
  /** Runs of the load check (default 200). */
  runs?: number;
  /** Worker processes of the load check (default 4). */
  workers?: number;
  /** Runs of the steady check, all at once with no crash (default 100). */
  steadyRuns?: number;
  /** The seed of the load check's random plans, approvals and denials (default 28). */
  seed?: number;
  /** Where the load check reports its numbers (default `console.log`). */
  log?: (line: string) => void;
}

/** The agent name every backend registers the conformance agent under. */
export const CONFORMANCE_AGENT = "conformance";

/** The suite's tables: what ran (the oracle), and the runs whose held calls may go on. */
export const CALLS_TABLE = "tollgate_conformance_calls";
export const GO_TABLE = "tollgate_conformance_go";

type ToolName = "pay" | "search" | "refund";

/** What a conformance run does, sent as its input (JSON): the model follows it. */
export interface ConformanceInput {
  /** The run's id: the tools write it in their rows (a tool's context does not carry it). */
  run: string;
  /** The tools the model calls, one per step, in order. */
  plan: ToolName[];
  /** The plan index whose call waits, after writing its row, for the run's row in GO_TABLE. */
  hold?: number | undefined;
  /** How long each call takes after writing its row (ms, default 0). */
  delayMs?: number | undefined;
}

/**
 * The conformance agent, the same in every backend: a model whose every answer is a function
 * of the transcript (so a replay gets the same answers), and three tools, each of which first
 * inserts `(run_id, call_id, tool, pid)` into `CALLS_TABLE`:
 * `pay` (not idempotent), `search` (`idempotent: true`) and `refund` (needs approval). The
 * model calls the input's plan, one tool per step, then answers with what it read, one line per
 * tool result (`<tool> <call id>: <output>`).
 */
export function conformanceAgent(query: Query): Pick<AgentLoopOptions, "provider" | "tools"> {
  const args = z.object({ run: z.string(), hold: z.boolean(), delayMs: z.number().int().min(0) });
  const conformanceTool = (name: ToolName, flags: { idempotent?: true; needsApproval?: true }) =>
    tool({
      name,
      description: `The conformance agent's ${name}`,
      input: args,
      ...flags,
      execute: async ({ run, hold, delayMs }, ctx) => {
        await query(
          `INSERT INTO ${CALLS_TABLE} (run_id, call_id, tool, pid) VALUES ($1, $2, $3, $4)`,
          [run, ctx.toolCallId, name, process.pid],
        );
        while (hold) {
          const go = await query(`SELECT 1 FROM ${GO_TABLE} WHERE run_id = $1`, [run]);
          if (go.length > 0) break;
          await sleep(25);
        }
        if (delayMs > 0) await sleep(delayMs);
        return { tool: name, pid: process.pid };
      },
    });
  const provider = functionProvider((request) => {
    const input = inputOf(request.messages);
    const asked = request.messages.filter((message) => message.role === "assistant").length;
    const next = input.plan[asked];
    if (next === undefined) return { text: readBack(request.messages) };
    const callArgs = { run: input.run, hold: input.hold === asked, delayMs: input.delayMs ?? 0 };
    return { toolCalls: [{ name: next, args: callArgs }] };
  });
  return {
    provider,
    tools: [
      conformanceTool("pay", {}),
      conformanceTool("search", { idempotent: true }),
      conformanceTool("refund", { needsApproval: true }),
    ],
  };
}

/** The input of a conformance run. */
export function conformanceInput(input: ConformanceInput): string {
  return JSON.stringify(input);
}

function inputOf(messages: readonly Message[]): ConformanceInput {
  const first = messages[0];
  if (first?.role !== "user" || typeof first.content !== "string") {
    throw new Error("the conformance agent's run starts with its input as a user message");
  }
  return JSON.parse(first.content) as ConformanceInput;
}

/** What the model read: one line per tool result of the transcript. */
function readBack(messages: readonly Message[]): string {
  return messages
    .flatMap((message) => (message.role === "tool" ? message.results : []))
    .map(
      ({ toolName, toolCallId, output }) =>
        `${toolName} ${toolCallId}: ${typeof output === "string" ? output : JSON.stringify(output)}`,
    )
    .join("\n");
}

/**
 * The durable-backend contract as a list of named async checks, on real worker processes the
 * backend starts. Each check starts its own workers (executor ids of its own) and stops them.
 *
 * @example
 * for (const check of durableConformance(backend)) it(check.name, check.run, check.timeoutMs);
 */
export function durableConformance(
  backend: DurableBackend,
  options: DurableConformanceOptions = {},
): DurableCheck[] {
  const { client, query } = backend;
  const total = options.runs ?? 200;
  const workerCount = options.workers ?? 4;
  const seed = options.seed ?? 28;
  const steadyRuns = options.steadyRuns ?? 100;
  const log = options.log ?? console.log;
  // Run ids of this suite's run: the table may hold other runs (another backend, an older run).
  const tag = `${backend.name}-${process.pid}-${Date.now().toString(36)}`;
  let tables: Promise<void> | undefined;
  const prepared = () => {
    tables ??= createTables(query);
    return tables;
  };

  /** A check's workers: started through it, all stopped when the check ends. */
  const session = async (
    body: (start: (id: string) => Promise<DurableWorker>) => Promise<void>,
  ) => {
    await prepared();
    const started: DurableWorker[] = [];
    const start = async (id: string) => {
      const worker = await backend.startWorker(id);
      started.push(worker);
      return worker;
    };
    try {
      await body(start);
    } catch (error) {
      const printed = started.map((w) => `[${w.executorId} ${w.pid}]\n${w.output()}`).join("\n");
      throw new Error(`${(error as Error).message}\nthe workers printed:\n${printed}`, {
        cause: error,
      });
    } finally {
      await Promise.all(started.map(stop));
    }
  };

  const rowsOf = async (runId: string) =>
    (await query(`SELECT call_id, tool, pid FROM ${CALLS_TABLE} WHERE run_id = $1 ORDER BY id`, [
      runId,
    ])) as Row[];
  const release = (runId: string) =>
    query(`INSERT INTO ${GO_TABLE} (run_id) VALUES ($1) ON CONFLICT DO NOTHING`, [runId]);
  const result = (runId: string) =>
    within(120_000, client.result(runId), `the result of run ${runId}`);
  const pauseOf = (runId: string, pause: number, ms = 30_000) =>
    waitFor(
      `run ${runId} to wait in pause ${pause}`,
      async () => {
        const waiting = await client.waiting(runId, { timeoutMs: 5_000 });
        return waiting?.pause === pause ? waiting : undefined;
      },
      ms,
    );

  /** Starts a run whose call at `hold` waits; SIGKILLs its worker there; restarts the worker. */
  async function killMidTool(
    start: (id: string) => Promise<DurableWorker>,
    runId: string,
    plan: ToolName[],
    hold: number,
  ) {
    // The run's id for its worker's executor id: each check's workers have ids of their own.
    const first = await start(runId);
    await client.start(runId, conformanceInput({ run: runId, plan, hold }));
    const held = plan[hold]!;
    await waitFor(`run ${runId}'s ${held} to start`, async () => {
      const rows = await rowsOf(runId);
      return rows.filter((row) => row.tool === held).length === countOf(plan, held, hold)
        ? true
        : undefined;
    });
    first.kill("SIGKILL");
    await first.exited;
    // Let a call that runs again go on (one that wrongly ran again would show as a second row).
    await release(runId);
    const second = await start(runId);
    const ended = await result(runId);
    ensure(ended.status === "completed", `run ${runId} ended ${ended.status}, not completed`);
    return { first, second, rows: await rowsOf(runId), result: ended };
  }

  return [
    {
      name: "recovery: SIGKILL mid-tool, a non-idempotent call is not run again; the model reads outcome unknown",
      timeoutMs: 60_000,
      run: () =>
        session(async (start) => {
          const runId = `${tag}-pay`;
          const {
            first,
            rows,
            result: ended,
          } = await killMidTool(start, runId, ["search", "pay"], 1);
          const [search, pay] = callsOf(rows, ["search", "pay"]);
          ensureEqual(pay.rows.length, 1, "rows of pay (it must not run again)");
          ensureEqual(pay.rows[0]!.pid, first.pid, "the process pay ran in");
          ensureEqual(search.rows.length, 1, "rows of the settled search");
          ensure(
            /outcome unknown/i.test(readLine(ended, "pay", pay.callId) ?? ""),
            `the model should read "outcome unknown" for pay ${pay.callId}; it read:\n${ended.text}`,
          );
          ensureEqual(
            outputOf(ended, search.callId),
            { tool: "search", pid: first.pid },
            "the settled search's result",
          );
        }),
    },
    {
      name: "recovery: SIGKILL mid-tool, an idempotent call runs again once; settled calls keep their results",
      timeoutMs: 60_000,
      run: () =>
        session(async (start) => {
          const runId = `${tag}-search`;
          const {
            first,
            second,
            rows,
            result: ended,
          } = await killMidTool(start, runId, ["search", "pay", "search"], 2);
          const [search, pay, again] = callsOf(rows, ["search", "pay", "search"]);
          ensureEqual(search.rows.length, 1, "rows of the first search (settled)");
          ensureEqual(pay.rows.length, 1, "rows of pay (settled)");
          ensureEqual(
            again.rows.map((row) => row.pid),
            [first.pid, second.pid],
            "the processes the interrupted search ran in (once, then once again)",
          );
          ensureEqual(
            outputOf(ended, search.callId),
            { tool: "search", pid: first.pid },
            "the settled search's result",
          );
          ensureEqual(
            outputOf(ended, pay.callId),
            { tool: "pay", pid: first.pid },
            "the settled pay's result",
          );
          ensureEqual(
            outputOf(ended, again.callId),
            { tool: "search", pid: second.pid },
            "the search that ran again",
          );
        }),
    },
    {
      name: "decisions: delivered twice run once; a forged and a stale one run nothing, the run keeps waiting",
      timeoutMs: 60_000,
      run: () =>
        session(async (start) => {
          const runId = `${tag}-decisions`;
          const worker = await start(runId);
          await client.start(runId, conformanceInput({ run: runId, plan: ["refund", "refund"] }));
          const first = await pauseOf(runId, 0);
          const a = first.pending[0]!;
          const approveA = { [a.key]: { approve: true, digest: a.digest } };
          await client.decide(runId, 0, approveA);
          await client.decide(runId, 0, approveA);
          const second = await pauseOf(runId, 1);
          const b = second.pending[0]!;
          ensure(b.key !== a.key, "the run's two pauses wait on different calls");
          ensureEqual(refundRows(await rowsOf(runId)), { [a.key]: 1 }, "refunds after pause 0");

          // A refusal other than `seen`, once `send` has sent a decision; failing at once if
          // the run went on instead. Without `lastRefusal`, only the decisions are sent: were
          // one of them taken, the end state below would show it.
          const refused = backend.lastRefusal?.bind(backend);
          const refusal = async (what: string, send: () => Promise<unknown>, seen?: string) => {
            await send();
            if (!refused) return undefined;
            return waitFor(`${what} to be refused`, async () => {
              const reason = await refused(runId);
              if (reason !== undefined && reason !== seen) return reason;
              const still = await client.waiting(runId, { timeoutMs: 0 });
              if (still?.pause !== 1) {
                const rows = JSON.stringify(refundRows(await rowsOf(runId)));
                throw new Error(
                  `the run stopped waiting in pause 1 after ${what} (refunds: ${rows})`,
                );
              }
              return undefined;
            });
          };
          // Forged: pause 1's call, a digest it does not have. Were it taken, b would never run.
          const forged = await refusal("the forged decision", () =>
            client.decide(runId, 1, {
              [b.key]: { approve: false, digest: flipped(b.digest), reason: "forged" },
            }),
          );
          // Stale: pause 0's decision again (now with a reason: no duplicate), and aimed at pause 1.
          await client.decide(runId, 0, {
            [a.key]: { approve: true, digest: a.digest, reason: "again" },
          });
          await refusal(
            "the stale decision",
            () => client.decide(runId, 1, { [a.key]: { approve: true, digest: a.digest } }),
            forged,
          );
          if (refused) {
            const still = await client.waiting(runId, { timeoutMs: 1_000 });
            ensureEqual(still?.pause, 1, "the pause the run waits in after the refusals");
            ensureEqual(
              refundRows(await rowsOf(runId)),
              { [a.key]: 1 },
              "refunds after the forged and stale decisions",
            );
          }
          const approveB = { [b.key]: { approve: true, digest: b.digest } };
          await client.decide(runId, 1, approveB);
          await client.decide(runId, 1, approveB);
          const ended = await result(runId);
          ensure(ended.status === "completed", `run ${runId} ended ${ended.status}`);
          ensureEqual(
            refundRows(await rowsOf(runId)),
            { [a.key]: 1, [b.key]: 1 },
            "refunds once the right decisions came (each delivered twice)",
          );
          ensureEqual(
            [outputOf(ended, a.key), outputOf(ended, b.key)],
            [
              { tool: "refund", pid: worker.pid },
              { tool: "refund", pid: worker.pid },
            ],
            "what the model read of the two refunds",
          );
        }),
    },
    {
      // The token rule must not call a call "unknown" that no crash interrupted: an engine that
      // ends attempts on its own (a suspension, a timeout) would drop calls, telling the model
      // they may have run. The load check below cannot tell those from the kill's.
      name: `steady: ${steadyRuns} runs at once across ${workerCount} workers, no crash: every call ran once and the model read its own result`,
      timeoutMs: 120_000,
      run: () =>
        session(async (start) => {
          const ids = Array.from({ length: workerCount }, (_, i) => `${tag}-steady-${i + 1}`);
          await Promise.all(ids.map((id) => start(id)));
          const plan: ToolName[] = ["pay", "search", "pay"];
          const runIds = Array.from({ length: steadyRuns }, (_, i) => `${tag}-steady-run-${i}`);
          const ended = await Promise.all(
            runIds.map(async (runId) => {
              await client.start(runId, conformanceInput({ run: runId, plan }));
              return result(runId);
            }),
          );
          const unknown: string[] = [];
          for (const [i, runId] of runIds.entries()) {
            const done = ended[i]!;
            ensure(done.status === "completed", `run ${runId} ended ${done.status}`);
            const rows = await rowsOf(runId);
            const calls = done.steps.flatMap((step) => step.calls);
            ensureEqual(calls.length, plan.length, `the calls of run ${runId}`);
            for (const call of calls) {
              const ran = rows.filter((row) => row.call_id === call.toolCallId);
              const output = call.result?.output;
              if (call.result?.isError && /outcome unknown/i.test(String(output))) {
                unknown.push(`${runId} ${call.toolName} ${call.toolCallId} (${ran.length} rows)`);
                continue;
              }
              ensureEqual(ran.length, 1, `the executions of ${call.toolName} ${call.toolCallId}`);
              ensureEqual(output, { tool: call.toolName, pid: ran[0]!.pid }, "what the model read");
            }
          }
          ensure(
            unknown.length === 0,
            `${unknown.length} calls read "outcome unknown" with no crash: ${unknown.slice(0, 5).join(", ")}`,
          );
        }),
    },
    {
      name: `load: ${total} runs across ${workerCount} workers, random approvals, one worker SIGKILLed and restarted`,
      timeoutMs: 240_000,
      run: () =>
        session(async (start) => {
          ensure(workerCount >= 2, "the load check needs at least 2 workers");
          const ids = Array.from({ length: workerCount }, (_, i) => `${tag}-load-${i + 1}`);
          const workers = await Promise.all(ids.map((id) => start(id)));
          const victim = workers[1]!;
          const specs = loadSpecs(tag, total, workerCount, seed);
          const began = Date.now();
          let decided = 0;
          const toPause: number[] = [];
          const toEnd: number[] = [];
          const drive = async (spec: LoadSpec) => {
            const t0 = Date.now();
            await client.start(spec.runId, spec.input);
            // A held run waits for the kill, which waits for half the runs.
            const pause = await pauseOf(spec.runId, 0, 120_000);
            const t1 = Date.now();
            if (spec.held === undefined) toPause.push(t1 - t0);
            const call = pause.pending[0]!;
            ensureEqual(call.toolName, "refund", `the call run ${spec.runId} waits on`);
            await client.decide(spec.runId, 0, {
              [call.key]: spec.approve
                ? { approve: true, digest: call.digest }
                : { approve: false, digest: call.digest, reason: "denied by the suite" },
            });
            decided++;
            const ended = await result(spec.runId);
            if (spec.held === undefined) toEnd.push(Date.now() - t1);
            return ended;
          };
          const kill = async () => {
            const held = specs.filter((spec) => spec.held !== undefined);
            await waitFor(
              "every held call to start",
              async () => {
                const rows = await query(
                  `SELECT count(DISTINCT run_id) AS n FROM ${CALLS_TABLE} WHERE run_id = ANY($1) AND tool = ANY($2)`,
                  [held.map((spec) => spec.runId), ["pay", "search"]],
                );
                return Number(rows[0]!.n) === held.length ? true : undefined;
              },
              120_000,
            );
            await waitFor(
              "half the runs to be decided",
              () => (decided >= total / 2 ? true : undefined),
              120_000,
            );
            victim.kill("SIGKILL");
            await victim.exited;
            const killedAt = Date.now();
            await Promise.all(held.map((spec) => release(spec.runId)));
            const restarted = await start(victim.executorId);
            return { killedAt, restarted };
          };
          const [results, { killedAt, restarted }] = await Promise.all([
            Promise.all(specs.map(drive)),
            kill(),
          ]);
          const seconds = (Date.now() - began) / 1000;
          const numbers = checkLoad(specs, results, await loadRows(query, tag), victim, restarted);
          log(
            `durable conformance (${backend.name}): ${total} runs across ${workerCount} workers in ${seconds.toFixed(1)} s ` +
              `(${(total / seconds).toFixed(1)} runs/s, one approval cycle each), worker ${victim.executorId} SIGKILLed ` +
              `${((killedAt - began) / 1000).toFixed(1)} s in; ${numbers}; ` +
              `start to pause ${spread(toPause)}, decision to result ${spread(toEnd)} (runs not held)`,
          );
        }),
    },
  ];
}

type Row = { call_id: string; tool: ToolName; pid: number };

interface LoadSpec {
  runId: string;
  input: string;
  plan: ToolName[];
  approve: boolean;
  /** The tool whose call waits for the run's go row (the first runs hold, to be killed there). */
  held?: "pay" | "search" | undefined;
}

/**
 * The load check's runs: search and pay in a random order, then a refund approved or denied at
 * random, each call taking a random few ms. The first `2 × workers` runs hold at pay and the
 * next `2 × workers` at search, so the kill surely lands in calls of both kinds.
 */
function loadSpecs(tag: string, total: number, workers: number, seed: number): LoadSpec[] {
  const arbitrary = fc.record({
    order: fc.constantFrom<ToolName[][]>(["search", "pay"], ["pay", "search"]),
    approve: fc.boolean(),
    delayMs: fc.integer({ min: 0, max: 20 }),
  });
  return fc.sample(arbitrary, { seed, numRuns: total }).map((drawn, i) => {
    const runId = `${tag}-load-run-${i}`;
    const plan: ToolName[] = [...drawn.order, "refund"];
    const held = i < 2 * workers ? "pay" : i < 4 * workers ? "search" : undefined;
    const hold = held === undefined ? undefined : plan.indexOf(held);
    const input = conformanceInput({ run: runId, plan, hold, delayMs: drawn.delayMs });
    return { runId, input, plan, approve: drawn.approve, held };
  });
}

async function loadRows(query: Query, tag: string): Promise<Map<string, Row[]>> {
  const rows = await query(
    `SELECT run_id, call_id, tool, pid FROM ${CALLS_TABLE} WHERE run_id LIKE $1 ORDER BY id`,
    [`${tag}-load-run-%`],
  );
  const byRun = new Map<string, Row[]>();
  for (const row of rows) {
    const runId = row.run_id as string;
    byRun.set(runId, [...(byRun.get(runId) ?? []), row as Row]);
  }
  return byRun;
}

/**
 * The load check's oracle: every run completed; no call of pay or refund has 2 rows; every
 * approved refund has 1 row and every denied one 0; a search has 2 rows only when its first ran
 * in the killed worker; a call the model read as "outcome unknown" started in the killed worker
 * (and has 1 row, or 0 when the kill came between its intent and its start: counted apart, the
 * only way an approved refund may have no row). Gives the numbers, said in words.
 */
function checkLoad(
  specs: LoadSpec[],
  results: RunResult[],
  rowsByRun: Map<string, Row[]>,
  victim: DurableWorker,
  restarted: DurableWorker,
): string {
  let approved = 0;
  let unknown = 0;
  let beforeStart = 0;
  let reruns = 0;
  let interruptedHolds = 0;
  let victimRuns = 0;
  let inRestarted = 0;
  let inPeers = 0;
  specs.forEach((spec, i) => {
    const ended = results[i]!;
    ensure(ended.status === "completed", `run ${spec.runId} ended ${ended.status}`);
    const rows = rowsByRun.get(spec.runId) ?? [];
    const firstOfVictim = rows.findIndex((row) => row.pid === victim.pid);
    if (firstOfVictim >= 0) {
      victimRuns++;
      const after = rows.slice(firstOfVictim).filter((row) => row.pid !== victim.pid);
      if (after.some((row) => row.pid === restarted.pid)) inRestarted++;
      else if (after.length > 0) inPeers++;
    }
    const calls = callIdsOf(ended);
    for (const [callId, toolName] of calls) {
      const ran = rows.filter((row) => row.call_id === callId);
      const line = readLine(ended, toolName, callId) ?? "";
      const isUnknown = /outcome unknown/i.test(line);
      const where = `run ${spec.runId}, ${toolName} ${callId} (rows: ${JSON.stringify(ran)})`;
      if (toolName === "search") {
        ensure(ran.length === 1 || ran.length === 2, `${where}: a search runs once or twice`);
        if (ran.length === 2) {
          ensure(ran[0]!.pid === victim.pid, `${where}: ran twice, but not killed the first time`);
          reruns++;
          if (spec.held === "search") interruptedHolds++;
        } else if (spec.held === "search") {
          ensure(ran[0]!.pid !== victim.pid, `${where}: held in the killed worker, not run again`);
        }
        continue;
      }
      ensure(ran.length <= 1, `${where}: a non-idempotent call ran ${ran.length} times`);
      if (isUnknown) {
        unknown++;
        ensure(
          ran.every((row) => row.pid === victim.pid),
          `${where}: unknown, but not killed`,
        );
        if (ran.length === 0) beforeStart++;
        if (spec.held === toolName) interruptedHolds++;
      } else if (spec.held === toolName) {
        ensure(ran[0]?.pid !== victim.pid, `${where}: held in the killed worker, yet known`);
      }
      if (toolName === "refund") {
        if (spec.approve) approved++;
        const expected = spec.approve ? (isUnknown && ran.length === 0 ? 0 : 1) : 0;
        ensure(
          ran.length === expected,
          `${where}: a refund ${spec.approve ? "approved" : "denied"} ran ${ran.length} times`,
        );
      } else {
        ensure(ran.length === 1 || (isUnknown && ran.length === 0), `${where}: pay did not run`);
      }
    }
    ensureEqual(
      calls.map(([, name]) => name),
      spec.plan,
      `the calls of run ${spec.runId}`,
    );
  });
  ensure(
    interruptedHolds > 0,
    `the kill of worker ${victim.executorId} interrupted none of the held calls: the check proved nothing (does the backend give the worker any runs?)`,
  );
  return (
    `${approved} refunds approved, ${specs.length - approved} denied; ` +
    `${victimRuns} runs had calls in the killed worker; after the kill, ${inRestarted} of them ran calls in its restarted process and ${inPeers} in other workers; ` +
    `the kill interrupted ${interruptedHolds} held calls; ${unknown} calls outcome unknown ` +
    `(${beforeStart} of them killed between intent and start), ${reruns} searches ran again`
  );
}

/** The tool calls of a run, in order, with their tools (from the run's steps). */
function callIdsOf(result: RunResult): [string, ToolName][] {
  return result.messages.flatMap((message) =>
    message.role === "assistant"
      ? message.parts.flatMap((part) =>
          part.type === "tool-call" ? [[part.id, part.name as ToolName] as [string, ToolName]] : [],
        )
      : [],
  );
}

/** The rows of each planned call, in plan order (calls are told apart by their first row). */
function callsOf<const P extends readonly ToolName[]>(
  rows: Row[],
  plan: P,
): { [K in keyof P]: { callId: string; rows: Row[] } } {
  const callIds = [...new Set(rows.map((row) => row.call_id))];
  ensureEqual(
    callIds.map((id) => rows.find((row) => row.call_id === id)!.tool),
    plan,
    "the tools that ran, in order",
  );
  return callIds.map((callId) => ({
    callId,
    rows: rows.filter((row) => row.call_id === callId),
  })) as { [K in keyof P]: { callId: string; rows: Row[] } };
}

/** Rows per refund call. */
function refundRows(rows: Row[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const row of rows)
    if (row.tool === "refund") counts[row.call_id] = (counts[row.call_id] ?? 0) + 1;
  return counts;
}

/** The line of the model's final answer for a call: what it read for it. */
function readLine(result: RunResult, toolName: string, callId: string): string | undefined {
  const prefix = `${toolName} ${callId}: `;
  return result.text
    .split("\n")
    .find((line) => line.startsWith(prefix))
    ?.slice(prefix.length);
}

/** The output the model read for a call, parsed back from its final answer. */
function outputOf(result: RunResult, callId: string): unknown {
  const line = result.text.split("\n").find((l) => l.split(": ")[0]!.endsWith(` ${callId}`));
  if (line === undefined) return undefined;
  const text = line.slice(line.indexOf(": ") + 2);
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** The median and the 95th percentile of some durations (ms), in words. */
function spread(ms: number[]): string {
  const sorted = [...ms].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return `median ${at(0.5)} ms, p95 ${at(0.95)} ms`;
}

/** How many calls of `tool` the plan makes up to and including index `upTo`. */
function countOf(plan: ToolName[], tool: ToolName, upTo: number): number {
  return plan.slice(0, upTo + 1).filter((name) => name === tool).length;
}

/** A digest with its first hex digit changed. */
function flipped(digest: string): string {
  return (digest[0] === "0" ? "1" : "0") + digest.slice(1);
}

async function createTables(query: Query): Promise<void> {
  const statements = [
    `CREATE TABLE IF NOT EXISTS ${CALLS_TABLE} (id bigserial PRIMARY KEY, run_id text NOT NULL, call_id text NOT NULL, tool text NOT NULL, pid integer NOT NULL, at timestamptz NOT NULL DEFAULT now())`,
    `CREATE INDEX IF NOT EXISTS ${CALLS_TABLE}_run ON ${CALLS_TABLE} (run_id)`,
    `CREATE TABLE IF NOT EXISTS ${GO_TABLE} (run_id text PRIMARY KEY)`,
  ];
  for (const statement of statements) {
    try {
      await query(statement);
    } catch (error) {
      // Two suites creating the same table at once: the loser's "already exists" is fine.
      const code = (error as { code?: string }).code;
      if (code !== "23505" && code !== "42P07") throw error;
    }
  }
}

/** SIGTERM, then SIGKILL if the worker still runs 5 s later. */
async function stop(worker: DurableWorker): Promise<void> {
  worker.kill("SIGTERM");
  const stopped = await Promise.race([
    worker.exited.then(() => true),
    sleep(5_000).then(() => false),
  ]);
  if (!stopped) {
    worker.kill("SIGKILL");
    await worker.exited;
  }
}

/** Polls `check` until it gives a value; fails saying what was awaited. */
async function waitFor<T>(
  what: string,
  check: () => Promise<T | undefined> | T | undefined,
  ms = 30_000,
): Promise<T> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    const value = await check();
    if (value !== undefined) return value;
    await sleep(25);
  }
  throw new Error(`timed out after ${ms} ms waiting for ${what}`);
}

/** The promise's value, or a failure saying what did not come within `ms`. */
async function within<T>(ms: number, promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

function ensure(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(message);
}

function ensureEqual(actual: unknown, expected: unknown, what: string): void {
  const [a, b] = [JSON.stringify(actual), JSON.stringify(expected)];
  if (a !== b) throw new Error(`${what}: expected ${b}, got ${a}`);
}
