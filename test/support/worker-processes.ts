/**
 * Worker processes of examples/workers/ for its tests: each a real `node --import tsx
 * examples/workers/worker.ts` on a queue and key prefix of the test's own, sharing one folder
 * (the agent's trace file). Kept here, not in examples/, because examples/ is published.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../..", import.meta.url));
const WORKER = join(root, "examples", "workers", "worker.ts");

/** A worker process, with what it printed (shown when a wait times out). */
export interface WorkerProcess {
  process: ChildProcess;
  output: string;
  exited: Promise<void>;
}

/** Where the workers connect and what they share. */
export interface WorkerPoolOptions {
  /** The Redis server (queue and store). */
  url: string;
  /** The folder of the agent's trace file (`trace.log`) and its `hold-<order>` files. */
  dir: string;
  /** The queue's name. */
  queue: string;
  /** The store's (and the event streams') key prefix. */
  prefix: string;
  /** More environment for every worker (TOLLGATE_LEASE_MS and the like). */
  env?: Record<string, string>;
}

/** Worker processes started for a test, its bounded waits, and the agent's trace. */
export interface WorkerPool {
  readonly workers: WorkerProcess[];
  /** Starts one more worker; resolves once it printed `ready`. */
  start(): Promise<WorkerProcess>;
  /** Polls `check` until it returns a value, or fails saying what was awaited and what the workers printed. */
  waitFor<T>(
    what: string,
    check: () => Promise<T | undefined> | T | undefined,
    ms?: number,
  ): Promise<T>;
  /** The trace's lines, as `start|end <tool> <order> <pid>`. */
  traceLines(): string[];
  /** How many trace lines start with `line` (e.g. `start refund R-9`). */
  count(line: string): number;
  /**
   * A job's end state (`completed` or `failed`) and the job as BullMQ holds it then (with its
   * `returnvalue`), once it has one.
   */
  finished<J extends { getState(): Promise<string> }>(
    queue: { getJob(id: string): Promise<J | undefined> },
    id: string,
  ): Promise<{ job: J; state: "completed" | "failed" }>;
  /** Removes the test's queue and every key under its prefix, and closes both connections. */
  cleanUp(opened: {
    queue?:
      | { obliterate(options: { force: boolean }): Promise<void>; close(): Promise<void> }
      | undefined;
    redis?:
      | {
          keys(pattern: string): Promise<string[]>;
          del(...keys: string[]): Promise<number>;
          quit(): Promise<unknown>;
        }
      | undefined;
  }): Promise<void>;
  /** SIGTERM to every live worker, SIGKILL to any still running 5 s later. */
  stop(): Promise<void>;
}

/** A pool of worker processes for one test file (call `stop` in its afterAll). */
export function workerPool({ url, dir, queue, prefix, env = {} }: WorkerPoolOptions): WorkerPool {
  const workers: WorkerProcess[] = [];
  const trace = join(dir, "trace.log");
  const outputs = () => workers.map((w) => `[${w.process.pid}] ${w.output}`).join("\n");

  async function waitFor<T>(
    what: string,
    check: () => Promise<T | undefined> | T | undefined,
    ms = 20_000,
  ): Promise<T> {
    const until = Date.now() + ms;
    while (Date.now() < until) {
      const value = await check();
      if (value !== undefined) return value;
      await sleep(50);
    }
    throw new Error(`timed out after ${ms} ms waiting for ${what}; workers printed:\n${outputs()}`);
  }

  const traceLines = () =>
    existsSync(trace) ? readFileSync(trace, "utf8").trim().split("\n") : [];

  return {
    workers,
    waitFor,
    traceLines,
    count: (line) => traceLines().filter((l) => l.startsWith(`${line} `)).length,
    finished: (jobs, id) =>
      waitFor(`job ${id} to finish`, async () => {
        const state = await (await jobs.getJob(id))?.getState();
        if (state !== "completed" && state !== "failed") return undefined;
        // Read again once final: a job read before it completed has no returnvalue yet.
        const job = await jobs.getJob(id);
        return job ? { job, state } : undefined;
      }),
    start() {
      const child = spawn(process.execPath, ["--import", "tsx", WORKER], {
        cwd: root,
        env: {
          ...process.env,
          ...env,
          TOLLGATE_REDIS_URL: url,
          TOLLGATE_WORKERS_DIR: dir,
          TOLLGATE_QUEUE: queue,
          TOLLGATE_PREFIX: prefix,
        },
        stdio: ["ignore", "pipe", "pipe"],
      });
      const worker: WorkerProcess = {
        process: child,
        output: "",
        exited: new Promise((resolve) => child.once("exit", () => resolve())),
      };
      const collect = (chunk: Buffer) => {
        worker.output += chunk.toString();
      };
      child.stdout!.on("data", collect);
      child.stderr!.on("data", collect);
      workers.push(worker);
      return waitFor(`worker ${child.pid} to be ready`, () =>
        worker.output.includes("ready")
          ? worker
          : child.exitCode !== null
            ? Promise.reject(new Error(`worker exited ${child.exitCode}: ${worker.output}`))
            : undefined,
      );
    },
    async cleanUp({ queue: jobs, redis }) {
      if (jobs) {
        await jobs.obliterate({ force: true }).catch(() => {});
        await jobs.close();
      }
      if (redis) {
        const keys = await redis.keys(`${prefix}*`);
        if (keys.length > 0) await redis.del(...keys);
        await redis.quit();
      }
    },
    async stop() {
      await Promise.all(
        workers.map(async ({ process: child, exited }) => {
          if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
          const stopped = await Promise.race([
            exited.then(() => true),
            sleep(5_000).then(() => false),
          ]);
          if (!stopped) child.kill("SIGKILL");
        }),
      );
    },
  };
}

/** How a worker process ended, and what it printed. */
export interface WorkerExit {
  code: number | null;
  output: string;
}

/**
 * Starts one worker with this environment and waits for it to exit on its own; a worker still
 * running after `ms` is killed and the wait fails with what it printed.
 */
export function runWorkerToExit(env: Record<string, string>, ms = 30_000): Promise<WorkerExit> {
  const child = spawn(process.execPath, ["--import", "tsx", WORKER], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
  };
  child.stdout!.on("data", collect);
  child.stderr!.on("data", collect);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`the worker still ran after ${ms} ms; it printed:\n${output}`));
    }, ms);
    child.once("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}
