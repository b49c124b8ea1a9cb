#!/usr/bin/env node
// Starts Redis and PostgreSQL on 127.0.0.1 (random free ports, data in a temp folder), runs a
// command with their URLs in TOLLGATE_REDIS_URL and TOLLGATE_POSTGRES_URL, then stops them and
// removes the folder, whatever way the command ends. `npm run test:services` and `.ci/run` use it.
//
//   node scripts/with-services.mjs <command> [args…]
//
// The servers come from Debian's packages (`apt-get install redis-server postgresql`). As root,
// PostgreSQL's `initdb` and server run as the `postgres` user (PostgreSQL refuses root).
import { spawn, spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

const [command, ...args] = process.argv.slice(2);
if (!command) {
  console.error("usage: node scripts/with-services.mjs <command> [args…]");
  process.exit(2);
}

const root = mkdtempSync(join(tmpdir(), "tollgate-services-"));
chmodSync(root, 0o755); // the postgres user must reach its data folder inside
/** Stops the servers started so far, newest first. */
const stops = [];

try {
  const redisUrl = await startRedis();
  const postgresUrl = await startPostgres();
  console.log(`services: Redis at ${redisUrl}, PostgreSQL at ${postgresUrl}`);
  const code = await run(command, args, {
    ...process.env,
    TOLLGATE_REDIS_URL: redisUrl,
    TOLLGATE_POSTGRES_URL: postgresUrl,
    TOLLGATE_REQUIRE_SERVICES: "1",
  });
  process.exitCode = code;
} catch (error) {
  console.error(`services: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
} finally {
  for (const stop of stops.reverse()) await stop();
  rmSync(root, { recursive: true, force: true });
}

/** Runs the command with inherited stdio; resolves its exit code (forwarding Ctrl-C to it). */
function run(file, argv, env) {
  return new Promise((resolve) => {
    const child = spawn(file, argv, { stdio: "inherit", env, shell: process.platform === "win32" });
    const forward = (signal) => child.kill(signal);
    process.on("SIGINT", forward);
    process.on("SIGTERM", forward);
    child.on("error", (error) => {
      console.error(`services: cannot run ${file}: ${error.message}`);
      resolve(127);
    });
    child.on("exit", (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

async function startRedis() {
  const bin = onPath("redis-server");
  if (!bin) throw new Error("redis-server not found: apt-get install redis-server");
  const port = await freePort();
  const dir = join(root, "redis");
  spawnSync("mkdir", [dir]);
  const server = spawn(
    bin,
    ["--bind", "127.0.0.1", "--port", String(port), "--save", "", "--appendonly", "no"],
    { cwd: dir, stdio: ["ignore", "pipe", "pipe"] },
  );
  stops.push(() => stopProcess(server, "SIGTERM"));
  await waitForLine(server, /Ready to accept connections/, "redis-server");
  return `redis://127.0.0.1:${port}`;
}

async function startPostgres() {
  const bin = postgresBin();
  if (!bin) throw new Error("PostgreSQL not found: apt-get install postgresql");
  const port = await freePort();
  const data = join(root, "pgdata");
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    spawnSync("install", ["-d", "-o", "postgres", "-g", "postgres", "-m", "700", data]);
  }
  const asUser = (file, argv) =>
    asRoot ? ["runuser", ["-u", "postgres", "--", file, ...argv]] : [file, argv];
  const [initFile, initArgs] = asUser(join(bin, "initdb"), [
    "-D",
    data,
    "-U",
    "postgres",
    "--auth=trust",
    "-E",
    "UTF8",
    "--no-sync",
  ]);
  const init = spawnSync(initFile, initArgs, { encoding: "utf8" });
  if (init.status !== 0) throw new Error(`initdb failed:\n${init.stderr || init.stdout}`);
  const [file, argv] = asUser(join(bin, "postgres"), [
    "-D",
    data,
    "-p",
    String(port),
    "-c",
    "listen_addresses=127.0.0.1",
    "-c",
    `unix_socket_directories=${data}`,
    "-c",
    "max_connections=200",
  ]);
  const server = spawn(file, argv, { stdio: ["ignore", "pipe", "pipe"] });
  // SIGINT is PostgreSQL's "fast shutdown"; runuser passes it on.
  stops.push(() => stopProcess(server, "SIGINT"));
  await waitForLine(server, /ready to accept connections/, "postgres");
  return `postgres://postgres@127.0.0.1:${port}/postgres`;
}

/** The folder of PostgreSQL's server programs: Debian's newest, else `postgres` on the PATH. */
function postgresBin() {
  const debian = "/usr/lib/postgresql";
  if (existsSync(debian)) {
    const versions = readdirSync(debian)
      .filter((name) => existsSync(join(debian, name, "bin", "postgres")))
      .sort((a, b) => Number(b) - Number(a));
    if (versions[0]) return join(debian, versions[0], "bin");
  }
  const onPathPostgres = onPath("postgres");
  return onPathPostgres ? join(onPathPostgres, "..") : undefined;
}

function onPath(name) {
  for (const dir of (process.env.PATH ?? "").split(":")) {
    if (dir && existsSync(join(dir, name))) return join(dir, name);
  }
  for (const dir of ["/usr/sbin", "/usr/bin", "/usr/local/bin"]) {
    if (existsSync(join(dir, name))) return join(dir, name);
  }
  return undefined;
}

/** A port nothing listens on now, on 127.0.0.1. */
function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

/** Resolves when the server prints `ready`; rejects if it exits first or takes over 30 s. */
function waitForLine(child, ready, name) {
  return new Promise((resolve, reject) => {
    let output = "";
    const timer = setTimeout(
      () => fail(new Error(`${name} did not start in 30 s:\n${output}`)),
      30_000,
    );
    const onData = (chunk) => {
      output += chunk;
      if (ready.test(output)) {
        clearTimeout(timer);
        resolve();
      }
    };
    const fail = (error) => {
      clearTimeout(timer);
      reject(error);
    };
    child.stdout.setEncoding("utf8").on("data", onData);
    child.stderr.setEncoding("utf8").on("data", onData);
    child.once("error", fail);
    child.once("exit", (code) =>
      fail(new Error(`${name} exited (${code}) before it was ready:\n${output}`)),
    );
  });
}

function stopProcess(child, signal) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
    child.once("exit", () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill(signal);
  });
}
