/**
 * The bench runs compiled, not under tsx. tsx transforms each file with esbuild's `keepNames`,
 * which adds a `__name()` call for every closure created (tollgate creates several per step),
 * so timing src/ under tsx would time tsx, not tollgate as it ships. `npm run bench` therefore
 * bundles bench/run.ts with esbuild — tollgate inlined from src/ the way tsup compiles it
 * (target es2022, no keepNames), every npm package external and loaded as published (the peers
 * from bench/node_modules, see peers.ts) — and runs that bundle with plain `node`.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { type BuildOptions, build } from "esbuild";
import { BENCH_MODULES } from "./peers.js";

/** The repository root (the bundle runs from a temp dir, so it is passed down in the env). */
export const ROOT =
  process.env.TOLLGATE_BENCH_ROOT ?? join(dirname(fileURLToPath(import.meta.url)), "..");

const BUNDLE_NAME = "bench.mjs";

/** True inside the compiled bench. */
export const BUNDLED = import.meta.url.endsWith(`/${BUNDLE_NAME}`);

/**
 * A temp dir whose bare imports resolve as bench/'s files do: from bench/node_modules (the
 * peers, peers.ts), then the repo's node_modules. Two symlinks, one level apart:
 * `<tmp>/node_modules` → node_modules and `<tmp>/bench/node_modules` → bench/node_modules;
 * `dir` is `<tmp>/bench`.
 */
export function makeBuildDir(): { dir: string; dispose(): void } {
  const top = mkdtempSync(join(tmpdir(), "tollgate-bench-"));
  const dir = join(top, "bench");
  mkdirSync(dir);
  symlinkSync(join(ROOT, "node_modules"), join(top, "node_modules"), "dir");
  symlinkSync(BENCH_MODULES, join(dir, "node_modules"), "dir");
  return { dir, dispose: () => rmSync(top, { recursive: true, force: true }) };
}

/** How the bench's bundles are built: tollgate inlined from `root`'s src/, npm packages external. */
function bundleOptions(root: string, entry: string): BuildOptions {
  return {
    entryPoints: [join(root, entry)],
    bundle: true,
    format: "esm",
    platform: "node",
    target: "es2022",
    packages: "external",
    tsconfig: join(root, "tsconfig.json"),
    logLevel: "warning",
  };
}

/** Bundles bench/run.ts into `dir`; returns the bundle's path. */
export async function compileBench(dir: string): Promise<string> {
  const outfile = join(dir, BUNDLE_NAME);
  await build({ ...bundleOptions(ROOT, "bench/run.ts"), outfile });
  return outfile;
}

/** The cold child's file name in the folder `compileColdChild` writes. */
const COLD_CHILD = "user-cold-entry.mjs";

/**
 * Bundles section 9's cold child (bench/user-cold-entry.ts, see user-cold.ts) into `dir`, code
 * split, its chunks beside it; returns the entry's path. Built here, not in user-cold.ts, so
 * the child never loads esbuild (1.6 MB of heap and about 60 ms of import).
 */
export async function compileColdChild(dir: string, root = ROOT): Promise<string> {
  await build({
    ...bundleOptions(root, "bench/user-cold-entry.ts"),
    splitting: true,
    outdir: dir,
    entryNames: "[name]",
    outExtension: { ".js": ".mjs" },
  });
  return join(dir, COLD_CHILD);
}

/**
 * Compiles the bench and runs it with `node` (after `nodeFlags`), passing the arguments on;
 * `after` sees the bundle before its temp dir goes. Returns the exit code.
 */
export async function relaunch(
  args: string[],
  nodeFlags: string[] = [],
  after?: (bundle: string) => void,
): Promise<number> {
  const { dir, dispose } = makeBuildDir();
  try {
    const bundle = await compileBench(dir);
    const child = spawnSync(process.execPath, [...nodeFlags, bundle, ...args], {
      cwd: ROOT,
      stdio: "inherit",
      env: { ...process.env, TOLLGATE_BENCH_ROOT: ROOT },
    });
    if (child.status === 0) after?.(bundle);
    return child.status ?? 1;
  } finally {
    dispose();
  }
}

/**
 * Runs the compiled bench again as a child (`node [...nodeFlags] <bundle> ...args`) and returns
 * what it printed; throws with its stderr when it fails, hangs past `timeoutMs`, or exits 13
 * (a top-level await that never settled: a run that never ended).
 */
export function benchChild(args: string[], nodeFlags: string[] = [], timeoutMs = 600_000): string {
  const child = spawnSync(process.execPath, [...nodeFlags, process.argv[1]!, ...args], {
    encoding: "utf8",
    maxBuffer: 64 << 20,
    timeout: timeoutMs,
  });
  if (child.status === 0) return child.stdout;
  const why =
    child.signal === "SIGTERM"
      ? `timed out after ${timeoutMs / 1000} s`
      : child.status === 13
        ? "exit code 13: a run never settled (unsettled top-level await)"
        : `exit code ${child.status ?? child.signal}`;
  throw new Error(`bench child ${args.join(" ")}: ${why}\n${child.stderr}`.trim());
}
