/**
 * A restate-server for a test file: the binary of `@restatedev/restate-server` (installed in
 * bench/'s npm project: `npm run bench:install`), started on 127.0.0.1 with free ports and a
 * temp data dir (TMPDIR inside it: the server leaves an `invoker-*` dir per partition there),
 * telemetry off, and stopped after. Plus an SDK endpoint as a child process, to kill mid-run.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { arch, platform, tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../..", import.meta.url));
const HOW = "run `npm run bench:install` (it installs @restatedev/restate-server into bench/)";

/**
 * The restate-server binary, or `undefined` after printing why the suite skips. Under
 * TOLLGATE_REQUIRE_SERVICES=1 a missing binary fails the file instead.
 */
export function restateServerBinary(file: string): string | undefined {
  const name = `@restatedev/restate-server-${platform()}-${arch()}/bin/restate-server`;
  let binary: string | undefined;
  try {
    binary = createRequire(join(root, "bench", "package.json")).resolve(name);
  } catch {}
  if (binary && existsSync(binary)) return binary;
  const missing = `${name} is not installed in bench/node_modules`;
  if (process.env.TOLLGATE_REQUIRE_SERVICES === "1") {
    throw new Error(`TOLLGATE_REQUIRE_SERVICES=1 and ${missing}`);
  }
  console.warn(`${file} (SKIPPED: ${missing}; ${HOW})`);
  return undefined;
}

/** A free TCP port on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

/** A running restate-server. */
export interface RestateServer {
  ingress: string;
  admin: string;
  /** The data dir (removed by `stop`). */
  dir: string;
  /** Registers the deployment at `uri` (an HTTP/2 endpoint). */
  register(uri: string): Promise<void>;
  /** The server's log, for failure messages. */
  log(): string;
  /** SIGTERM (SIGKILL after 10 s), then removes the data dir. */
  stop(): Promise<void>;
}

/**
 * Starts restate-server; resolves once its admin and ingress health endpoints answer. `env`
 * adds server settings (`RESTATE_WORKER__INVOKER__INACTIVITY_TIMEOUT` and the like).
 */
export async function startRestateServer(
  binary: string,
  env: Record<string, string> = {},
): Promise<RestateServer> {
  const dir = mkdtempSync(join(tmpdir(), "tollgate-restate-"));
  const tmp = join(dir, "tmp");
  mkdirSync(tmp);
  const [ingressPort, adminPort, fabricPort] = [
    await freePort(),
    await freePort(),
    await freePort(),
  ];
  const logFile = join(dir, "server.log");
  const out = openSync(logFile, "a");
  const child = spawn(binary, ["--no-logo", "--base-dir", dir], {
    env: {
      ...process.env,
      TMPDIR: tmp,
      DO_NOT_TRACK: "true",
      RESTATE_LISTEN_MODE: "tcp",
      RESTATE_BIND_IP: "127.0.0.1",
      RESTATE_BIND_PORT: String(fabricPort),
      RESTATE_ADMIN__BIND_PORT: String(adminPort),
      RESTATE_INGRESS__BIND_PORT: String(ingressPort),
      RESTATE_NODE_NAME: "n1",
      RESTATE_DEFAULT_NUM_PARTITIONS: "2",
      RESTATE_LOG_FILTER: "warn,restate=info,octocrab=off",
      RESTATE_LOG_DISABLE_ANSI_CODES: "true",
      ...env,
    },
    stdio: ["ignore", out, out],
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const ingress = `http://127.0.0.1:${ingressPort}`;
  const admin = `http://127.0.0.1:${adminPort}`;
  const log = () => (existsSync(logFile) ? readFileSync(logFile, "utf8") : "");
  const server: RestateServer = {
    ingress,
    admin,
    dir,
    log,
    async register(uri) {
      const response = await fetch(`${admin}/deployments`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ uri, force: true }),
      });
      if (!response.ok) {
        throw new Error(`registering ${uri}: ${response.status} ${await response.text()}`);
      }
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill("SIGTERM");
        const killer = setTimeout(() => child.kill("SIGKILL"), 10_000);
        await exited;
        clearTimeout(killer);
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`restate-server exited:\n${log()}`);
    const healthy = await Promise.all([
      fetch(`${admin}/health`).then((r) => r.ok),
      fetch(`${ingress}/restate/health`).then((r) => r.ok),
    ]).then(
      (oks) => oks.every(Boolean),
      () => false,
    );
    if (healthy) return server;
    if (Date.now() > deadline) {
      await server.stop();
      throw new Error(`restate-server was not healthy within 60 s:\n${log()}`);
    }
    await sleep(50);
  }
}

/** An SDK endpoint running in a child process. */
export interface EndpointProcess {
  process: ChildProcess;
  output(): string;
  /** SIGKILL; resolves once it exited. */
  kill(): Promise<void>;
  /** SIGTERM; resolves once it exited. */
  stop(): Promise<void>;
}

/**
 * Starts `node --import tsx <script>` with `env`; resolves once it printed `ready`. The script
 * serves its endpoint on 127.0.0.1:`TOLLGATE_RESTATE_PORT` (set it in `env`).
 */
export async function startEndpoint(
  script: string,
  env: Record<string, string>,
): Promise<EndpointProcess> {
  const child = spawn(process.execPath, ["--import", "tsx", script], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (chunk) => {
    output += chunk;
  });
  child.stderr.on("data", (chunk) => {
    output += chunk;
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const end = async (signal: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill(signal);
      await exited;
    }
  };
  const deadline = Date.now() + 30_000;
  while (!/^ready/m.test(output)) {
    if (child.exitCode !== null) throw new Error(`endpoint ${script} exited:\n${output}`);
    if (Date.now() > deadline) {
      await end("SIGKILL");
      throw new Error(`endpoint ${script} did not print ready within 30 s:\n${output}`);
    }
    await sleep(25);
  }
  return {
    process: child,
    output: () => output,
    kill: () => end("SIGKILL"),
    stop: () => end("SIGTERM"),
  };
}

/** Polls `check` until it returns a value, or fails saying what was awaited. */
export async function waitFor<T>(
  what: string,
  check: () => Promise<T | undefined> | T | undefined,
  ms = 20_000,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await sleep(25);
  }
}
