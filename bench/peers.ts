/**
 * The libraries the bench measures tollgate against (the AI SDK, `@openai/agents-core`,
 * `eventsource-parser`) are not in the root package: their engines ask for Node 22 (they run on
 * 20), and `npm install` in a clone must print no engine warnings. They live in bench/'s own
 * npm project (bench/package.json, pinned by bench/package-lock.json) and install into
 * bench/node_modules with `npm run bench:install`; `npm run bench` runs that first when they are
 * missing or not the locked versions. test/tools/foreign-tools.test.ts loads the real AI SDK and
 * OpenAI Agents SDK from there too, and test/ai-sdk/*.test.ts the AI SDK's provider packages.
 *
 * This module imports none of them: it only reads files.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** bench/: the bench's own npm project (compiled, the bench runs from a temp dir: compile.ts). */
export const BENCH_DIR = process.env.TOLLGATE_BENCH_ROOT
  ? join(process.env.TOLLGATE_BENCH_ROOT, "bench")
  : dirname(fileURLToPath(import.meta.url));

/** bench/node_modules, where the peers install. */
export const BENCH_MODULES = join(BENCH_DIR, "node_modules");

/** The command that installs the peers, for messages. */
export const INSTALL_COMMAND = "npm run bench:install";

interface LockEntry {
  version?: string;
  optional?: boolean;
}

/**
 * Why bench/node_modules does not hold what bench/package-lock.json locks (a package missing or
 * at another version), or undefined when it does. Optional packages may be missing.
 */
export function peersStale(): string | undefined {
  const lock = JSON.parse(readFileSync(join(BENCH_DIR, "package-lock.json"), "utf8")) as {
    packages?: Record<string, LockEntry>;
  };
  for (const [path, entry] of Object.entries(lock.packages ?? {})) {
    if (path === "") continue;
    const manifest = join(BENCH_DIR, path, "package.json");
    if (!existsSync(manifest)) {
      if (entry.optional) continue;
      return `${path} is missing`;
    }
    const { version } = JSON.parse(readFileSync(manifest, "utf8")) as { version?: string };
    if (version !== entry.version) {
      return `${path} is ${version}, bench/package-lock.json locks ${entry.version}`;
    }
  }
  return undefined;
}

/**
 * Why the peers test/tools/foreign-tools.test.ts loads (`ai`, `@openai/agents-core`) cannot be
 * loaded from bench/node_modules, or undefined when both are there.
 */
export function foreignToolPeersMissing(): string | undefined {
  const missing = ["ai", "@openai/agents-core"].filter(
    (name) => !existsSync(join(BENCH_MODULES, name, "package.json")),
  );
  return missing.length === 0
    ? undefined
    : `${missing.join(" and ")} not installed in bench/node_modules`;
}

/**
 * Why the AI SDK packages test/ai-sdk/*.test.ts and examples/ai-sdk-model.ts load (`ai`,
 * `@ai-sdk/openai`, `@ai-sdk/anthropic`) cannot be loaded from bench/node_modules, or undefined
 * when all are there.
 */
export function aiSdkPeersMissing(): string | undefined {
  const missing = ["ai", "@ai-sdk/openai", "@ai-sdk/anthropic"].filter(
    (name) => !existsSync(join(BENCH_MODULES, name, "package.json")),
  );
  return missing.length === 0
    ? undefined
    : `${missing.join(", ")} not installed in bench/node_modules`;
}

/**
 * Installs the peers (`npm run bench:install`, which is `npm ci` in bench/) when they are missing
 * or stale; throws when the install fails.
 */
export function ensurePeers(): void {
  const stale = peersStale();
  if (stale === undefined) return;
  console.error(`bench: installing the libraries it compares against (${stale})`);
  // Under `npm run`, npm_execpath is npm's own CLI script: run it with this node.
  const npmCli = process.env.npm_execpath;
  const [command, args] =
    npmCli && /npm-cli\.[cm]?js$/.test(npmCli)
      ? [process.execPath, [npmCli, "run", "bench:install"]]
      : ["npm", ["run", "bench:install"]];
  const child = spawnSync(command, args, {
    cwd: dirname(BENCH_DIR),
    stdio: "inherit",
    shell: process.platform === "win32" && command === "npm",
  });
  if (child.status !== 0) {
    throw new Error(
      `bench: \`${INSTALL_COMMAND}\` failed (exit code ${child.status ?? child.signal})`,
    );
  }
  const still = peersStale();
  if (still !== undefined) throw new Error(`bench: after \`${INSTALL_COMMAND}\`, ${still}`);
}
