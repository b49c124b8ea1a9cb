/**
 * Measurement 5: bundle size (esbuild, minified, zod external, gzip -9) and import time in
 * fresh processes. tollgate is bundled from src/index.ts into a temp dir (not dist/), and that
 * ESM bundle is what the import-time rows load.
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";
import { ROOT } from "./compile.js";
import { type Stats, stats } from "./harness.js";
import { BENCH_DIR } from "./peers.js";

/** One bundle: what it contains and its size. */
export interface BundleSize {
  name: string;
  entry: string;
  minBytes: number;
  gzipBytes: number;
  /** Minified bytes by origin: "src" or the npm package they came from, largest first. */
  composition: { origin: string; bytes: number }[];
}

/** The three bundles, all with the same esbuild settings. */
const BUNDLES = [
  { name: "tollgate (core entry)", entry: "src/index.ts", contents: undefined },
  {
    name: "AI SDK 7 generateText + tool",
    entry: 'export { generateText, tool } from "ai"',
    contents: 'export { generateText, tool } from "ai";',
  },
  {
    name: "OpenAI agents-core Agent + Runner + tool",
    entry: 'export { Agent, Runner, tool } from "@openai/agents-core"',
    contents: 'export { Agent, Runner, tool } from "@openai/agents-core";',
  },
] as const;

/**
 * Bundles each entry (esbuild: bundle, minify, ESM, platform node, target es2022, zod
 * external) into `outDir`; returns the sizes. tollgate's bundle is `outDir/tollgate.mjs`.
 */
export async function bundleSizes(outDir: string): Promise<BundleSize[]> {
  const sizes: BundleSize[] = [];
  for (const [index, bundle] of BUNDLES.entries()) {
    const outfile = join(outDir, index === 0 ? "tollgate.mjs" : `peer-${index}.mjs`);
    const result = await build({
      ...(bundle.contents === undefined
        ? { entryPoints: [join(ROOT, bundle.entry)] }
        : { stdin: { contents: bundle.contents, resolveDir: BENCH_DIR, loader: "ts" } }),
      bundle: true,
      minify: true,
      format: "esm",
      platform: "node",
      target: "es2022",
      external: ["zod", "zod/*"],
      outfile,
      write: true,
      metafile: true,
      logLevel: "silent",
      tsconfig: join(ROOT, "tsconfig.json"),
    });
    const output = Object.values(result.metafile.outputs)[0]!;
    const code = readFileSync(outfile);
    const byOrigin = new Map<string, number>();
    for (const [path, input] of Object.entries(output.inputs)) {
      const origin = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path)?.[1] ?? "src";
      byOrigin.set(origin, (byOrigin.get(origin) ?? 0) + input.bytesInOutput);
    }
    sizes.push({
      name: bundle.name,
      entry: bundle.entry,
      minBytes: output.bytes,
      gzipBytes: gzipSync(code, { level: 9 }).length,
      composition: [...byOrigin]
        .map(([origin, bytes]) => ({ origin, bytes }))
        .sort((a, b) => b.bytes - a.bytes),
    });
  }
  return sizes;
}

/** Import time of one module, in ms over repeated fresh processes. */
export interface ImportTime {
  name: string;
  specifier: string;
  /** Wall time of `node -e "import(…)"` minus the median wall time of `node -e 0`. */
  cold: Stats;
  /** Time of `await import(…)` measured inside a process that has already imported zod. */
  overZod: Stats;
}

/**
 * Times each module in fresh processes, `reps` times, interleaved with a bare `node -e 0`:
 * cold (wall time minus bare node, as the issue asks) and over zod (an app that defines zod
 * tools has zod loaded already; timed inside the process, so no start-up noise).
 */
export function importTimes(
  tollgateBundle: string,
  reps: number,
): { bare: Stats; rows: ImportTime[] } {
  const targets = [
    {
      name: "tollgate (esbuild bundle of src/index.ts)",
      specifier: pathToFileURL(tollgateBundle).href,
    },
    { name: "ai", specifier: "ai" },
    { name: "@openai/agents-core", specifier: "@openai/agents-core" },
  ];
  const node = (args: string[]) => {
    // From bench/, bare specifiers resolve as the bench's own imports do (peers.ts).
    const child = spawnSync(process.execPath, args, { cwd: BENCH_DIR, encoding: "utf8" });
    if (child.status !== 0) throw new Error(`node ${args.join(" ")} failed:\n${child.stderr}`);
    return child.stdout;
  };
  const wall = (code: string) => {
    const started = performance.now();
    node(["-e", code]);
    return performance.now() - started;
  };
  const overZod = (specifier: string) =>
    Number(
      node([
        "--input-type=module",
        "-e",
        `await import("zod"); const t = performance.now(); await import(${JSON.stringify(specifier)}); process.stdout.write(String(performance.now() - t));`,
      ]),
    );
  const bare: number[] = [];
  const cold = targets.map(() => [] as number[]);
  const warm = targets.map(() => [] as number[]);
  wall("0");
  for (let rep = 0; rep < reps; rep++) {
    bare.push(wall("0"));
    targets.forEach((target, i) => {
      cold[i]!.push(wall(`import(${JSON.stringify(target.specifier)})`));
      warm[i]!.push(overZod(target.specifier));
    });
  }
  const bareStats = stats(bare);
  return {
    bare: bareStats,
    rows: targets.map((target, i) => ({
      ...target,
      cold: stats(cold[i]!.map((ms) => ms - bareStats.median)),
      overZod: stats(warm[i]!),
    })),
  };
}
