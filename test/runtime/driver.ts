/**
 * Runs the runtime smoke suite (test/runtime/checks.mjs) on the built package under Node, Bun,
 * Deno and workerd: `npm run build && npm run test:runtimes` (or `… -- bun deno` for some).
 *
 * The package is installed as a user gets it: `npm pack`, unpacked into a temp app's
 * node_modules next to copies of its dependencies and zod, so "tollgate" resolves to the
 * tarball's dist/ through its package.json exports. Each runtime gets its own replay server on
 * 127.0.0.1 answering recorded OpenAI Chat streams, and the driver checks the requests it got.
 * workerd runs through miniflare with the app bundled by esbuild, as wrangler would bundle it.
 * Any failure, a missing summary line or a wrong request count exits non-zero.
 */
import { execFile } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { build } from "esbuild";
import { Miniflare } from "miniflare";
import { chunkLines, chunksToSSE, recording } from "../providers/support/recordings.js";
import { type ReplayServer, startReplayServer } from "../support/replay-server.js";

const run = promisify(execFile);
const root = fileURLToPath(new URL("../../", import.meta.url));
const bin = (name: string) => join(root, "node_modules", ".bin", name);
const TIMEOUT_MS = 120_000;

/** The two recorded streams the adapter section replays, in order. */
const ANSWERS = [
  recording("openai-chat/f82268f2fefd5cfbc7eeb59c297688be2f6ca0849a6e4f17851b517310841d9b.bin"),
  chunksToSSE(chunkLines("openai-chat/openai-text.chunks.txt"), "openai-chat"),
].map((body) => ({
  headers: { "content-type": "text/event-stream" },
  body,
  split: "odd" as const,
}));

/** Installs the packed package into a fresh app folder; returns the folder. */
async function installPacked(work: string): Promise<string> {
  if (!existsSync(join(root, "dist", "index.js"))) {
    throw new Error("dist/ is missing: run `npm run build` first");
  }
  const { stdout } = await run("npm", ["pack", "--json", "--pack-destination", work], {
    cwd: root,
  });
  const [{ filename }] = JSON.parse(stdout) as [{ filename: string }];
  const app = join(work, "app");
  const modules = join(app, "node_modules");
  mkdirSync(join(modules, "tollgate"), { recursive: true });
  await run("tar", [
    "-xzf",
    join(work, filename),
    "-C",
    join(modules, "tollgate"),
    "--strip-components=1",
  ]);
  const manifest = JSON.parse(readFileSync(join(modules, "tollgate", "package.json"), "utf8"));
  const copied = new Set<string>();
  const copy = (name: string) => {
    if (copied.has(name)) return;
    copied.add(name);
    const from = join(root, "node_modules", name);
    cpSync(from, join(modules, name), { recursive: true, dereference: true });
    const own = JSON.parse(readFileSync(join(from, "package.json"), "utf8"));
    for (const dep of Object.keys(own.dependencies ?? {})) {
      if (!existsSync(join(from, "node_modules", dep))) copy(dep);
    }
  };
  for (const dep of Object.keys({ ...manifest.dependencies, ...manifest.peerDependencies })) {
    copy(dep);
  }
  for (const file of ["checks.mjs", "smoke.mjs", "worker.mjs"]) {
    cpSync(join(root, "test", "runtime", file), join(app, file));
  }
  const zod = JSON.parse(readFileSync(join(modules, "zod", "package.json"), "utf8")).version;
  writeFileSync(
    join(app, "package.json"),
    JSON.stringify({
      name: "tollgate-runtime-smoke",
      private: true,
      type: "module",
      dependencies: { tollgate: manifest.version, zod },
    }),
  );
  return app;
}

/** The requests each runtime's adapter section must have sent. */
function checkRequests(server: ReplayServer): string[] {
  const problems: string[] = [];
  const sent = server.requests.map((request) => ({ url: request.url, body: request.json() }));
  if (sent.length !== 2) problems.push(`replay server got ${sent.length} requests, expected 2`);
  for (const [i, request] of sent.entries()) {
    if (request.url !== "/v1/chat/completions" || request.body.stream !== true) {
      problems.push(`request ${i}: ${request.url} stream=${request.body.stream}`);
    }
  }
  const ids = (sent[1]?.body.messages ?? [])
    .filter((message: { role: string }) => message.role === "tool")
    .map((message: { tool_call_id: string }) => message.tool_call_id);
  if (JSON.stringify(ids) !== '["call_JMW1whyEaYG438VE1OIflxA2","call_DNYTawLBoN8fj3KN6qU9N1Ou"]') {
    problems.push(`second request's tool results: ${JSON.stringify(ids)}`);
  }
  return problems;
}

/** How to start smoke.mjs in each runtime, from the app folder. */
const COMMANDS: Record<string, (url: string) => [string, string[]]> = {
  node: (url) => [process.execPath, ["smoke.mjs", url]],
  bun: (url) => [bin("bun"), ["--no-install", "smoke.mjs", url]],
  deno: (url) => [
    bin("deno"),
    [
      "run",
      "--no-prompt",
      "--no-lock",
      "--node-modules-dir=manual",
      "--allow-net=127.0.0.1",
      "smoke.mjs",
      url,
    ],
  ],
};

/** Runs smoke.mjs in one runtime; returns its problems (none when it passed). */
async function smokeCli(runtime: string, app: string): Promise<string[]> {
  const server = await startReplayServer(ANSWERS);
  try {
    const [file, args] = COMMANDS[runtime]!(server.url);
    const env = { ...process.env, NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1" };
    const outcome = await run(file, args, { cwd: app, env, timeout: TIMEOUT_MS }).then(
      ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
      (error) => ({
        code: error.code ?? 1,
        stdout: error.stdout ?? "",
        stderr: error.stderr ?? "",
      }),
    );
    process.stdout.write(outcome.stdout);
    process.stderr.write(outcome.stderr);
    const problems = checkRequests(server);
    if (outcome.code !== 0) problems.unshift(`${runtime} exited with ${outcome.code}`);
    if (!/^runtime smoke ok: .* (\d+)\/\1 checks/m.test(outcome.stdout)) {
      problems.push(`${runtime} printed no passing summary line`);
    }
    return problems;
  } finally {
    await server.close();
  }
}

/** Bundles worker.mjs and runs the checks in workerd (miniflare), adapter included. */
async function smokeWorkerd(app: string): Promise<string[]> {
  const bundle = join(app, "worker.bundle.mjs");
  await build({
    entryPoints: [join(app, "worker.mjs")],
    outfile: bundle,
    bundle: true,
    format: "esm",
    platform: "neutral",
    mainFields: ["module", "main"],
    conditions: ["workerd", "worker", "browser"],
    logLevel: "warning",
  });
  const server = await startReplayServer(ANSWERS);
  const mf = new Miniflare({
    modules: true,
    script: readFileSync(bundle, "utf8"),
    compatibilityDate: "2025-07-18",
  });
  try {
    const response = await mf.dispatchFetch(
      `http://smoke.local/?replay=${encodeURIComponent(server.url)}`,
    );
    const report = (await response.json()) as { failures: string[] } & Record<string, unknown>;
    const { summary } = await import(join(app, "checks.mjs"));
    console.log(summary(report));
    const problems = [...report.failures, ...checkRequests(server)];
    if (response.status !== 200) problems.unshift(`workerd answered ${response.status}`);
    return problems;
  } finally {
    await mf.dispose();
    await server.close();
  }
}

async function main(): Promise<number> {
  const chosen = process.argv.slice(2);
  const runtimes = chosen.length > 0 ? chosen : ["node", "bun", "deno", "workerd"];
  const unknown = runtimes.filter((name) => name !== "workerd" && !(name in COMMANDS));
  if (unknown.length > 0) throw new Error(`unknown runtime(s): ${unknown.join(", ")}`);
  const work = mkdtempSync(join(tmpdir(), "tollgate-runtimes-"));
  try {
    const app = await installPacked(work);
    const failed: string[] = [];
    for (const runtime of runtimes) {
      const problems =
        runtime === "workerd" ? await smokeWorkerd(app) : await smokeCli(runtime, app);
      for (const problem of problems) console.error(`  ✗ ${runtime}: ${problem}`);
      if (problems.length > 0) failed.push(runtime);
    }
    console.log(
      failed.length === 0
        ? `runtime smoke suite passed on ${runtimes.join(", ")}`
        : `runtime smoke suite FAILED on ${failed.join(", ")}`,
    );
    return failed.length === 0 ? 0 : 1;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

process.exitCode = await main().catch((error) => {
  console.error(error);
  console.error("runtime smoke suite FAILED: the driver stopped");
  return 1;
});
