/**
 * Focused profiles of tollgate alone, for finding why a target is missed:
 *
 *   npm run bench -- --profile=loop          # CPU: 20-step tool runs with the gate active
 *   npm run bench -- --profile=stream        # CPU: 5,000 text deltas through loop.stream()
 *   npm run bench -- --profile=user-cold     # CPU: the first 300 1-call runs of a fresh process
 *   npm run bench -- --profile=user-1        # CPU: warm section 9 runs, 1 call (or user-20)
 *   npm run bench -- --profile=http-chat     # CPU: streamed 5-call runs over real HTTP (or
 *                                            # http-responses, http-anthropic, http-gemini;
 *                                            # http-floor-chat …: the same by fetch alone)
 *   npm run bench -- --promise-sites=loop    # which functions create the promises (or =stream)
 *
 * `--profile` runs the compiled bench under `node --cpu-prof` for a few seconds of that
 * workload, then prints the functions with the most self time, each with the src/ file it was
 * bundled from; the .cpuprofile is kept (open it in Chrome DevTools or speedscope).
 * `--profile=user-cold` profiles only the window of section 9's cold reading (tollgate with
 * `scriptedProvider` and a new loop per run, 1 tool call, the first 300 runs of the process,
 * in section 9's cold child, which holds tollgate and zod alone: see user-cold.ts),
 * through `node:inspector` started right before the first run (sampling every 20 µs), so
 * module loading is left out.
 * `--promise-sites` counts, for one run, the promises created per unit by the nearest
 * function on the stack.
 */
import { createHook } from "node:async_hooks";
import { readFileSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Contender } from "./harness.js";
import type { ColdSpec } from "./user-cold.js";

/** Loaded on demand, so the launcher (under tsx) never loads tollgate. */
const WORKLOADS: Record<string, () => Promise<Contender>> = {
  loop: async () =>
    (await import("./loop-overhead.js")).tollgateContender({ steps: 20, callsPerStep: 1 }),
  stream: async () => (await import("./streaming.js")).tollgateStream(5000),
  "user-1": async () => (await import("./user-cold.js")).userContender("tollgate", 1),
  "user-20": async () => (await import("./user-cold.js")).userContender("tollgate", 20),
  ...Object.fromEntries(
    (["chat", "responses", "anthropic", "gemini"] as const).flatMap((api) => [
      [`http-${api}`, async () => (await import("./real-http.js")).httpProfileContender(api)],
      [
        `http-floor-${api}`,
        async () => (await import("./real-http.js")).httpProfileContender(api, true),
      ],
    ]),
  ),
};

/** The workload, run for `seconds` (the profiled child's job). */
export async function profileChild(workload: string, seconds: number): Promise<void> {
  const make = WORKLOADS[workload];
  if (!make) throw new Error(`--profile: give one of ${Object.keys(WORKLOADS).join(", ")}`);
  const contender = await make();
  const until = performance.now() + seconds * 1000;
  let runs = 0;
  while (performance.now() < until) {
    await contender.run();
    runs++;
  }
  console.log(`${workload}: ${runs} runs in ${seconds} s`);
  // An http- workload's stand-in child would keep the process alive; --cpu-prof writes on exit.
  process.exit(0);
}

/**
 * `--over-floor=http-<api>`: tollgate's client CPU per run ÷ the fetch floor's, the two
 * alternating in one process (1.5 s of warm-up each, then `rounds` rounds of 0.5 s each), the
 * median of the rounds' ratios. Steadier than section 14's rows (their ratios move ±20 % between
 * runs; this one about ±3 %), so two trees compare by running it on each, a few processes
 * interleaved.
 */
export async function overFloorChild(workload: string, rounds: number): Promise<void> {
  const make = WORKLOADS[workload];
  const floorMake = WORKLOADS[workload.replace("http-", "http-floor-")];
  if (!workload.startsWith("http-") || !make || !floorMake) {
    const apis = Object.keys(WORKLOADS).filter((name) => /^http-(?!floor)/.test(name));
    throw new Error(`--over-floor: give one of ${apis.join(", ")}`);
  }
  const [contender, floor] = [await make(), await floorMake()];
  const cpuPerRun = async (of: Contender, ms: number) => {
    const before = process.cpuUsage();
    let runs = 0;
    for (const end = performance.now() + ms; performance.now() < end; runs++) await of.run();
    const used = process.cpuUsage(before);
    return (used.user + used.system) / runs;
  };
  await cpuPerRun(contender, 1500);
  await cpuPerRun(floor, 1500);
  const ratios: number[] = [];
  const own: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const cpu = await cpuPerRun(contender, 500);
    ratios.push(cpu / (await cpuPerRun(floor, 500)));
    own.push(cpu);
  }
  const median = (values: number[]) => values.sort((a, b) => a - b)[values.length >> 1]!;
  console.log(
    `${workload}: tollgate ÷ floor, client CPU per run: ${median(ratios).toFixed(3)} (${rounds} rounds; tollgate ${median(own).toFixed(0)} µs/run)`,
  );
  // The stand-in child would keep the process alive.
  process.exit(0);
}

/** `--profile=user-cold`'s child: profiles the spec's window, writes `dir/user-cold.cpuprofile`. */
export async function coldProfileChild(
  dir: string,
  { kind, calls, runs }: ColdSpec,
): Promise<void> {
  const { userContender } = await import("./user-cold.js");
  const contender = await userContender(kind, calls);
  const session = new Session();
  session.connect();
  const post = (method: string, params?: object) =>
    new Promise<unknown>((resolve, reject) =>
      session.post(method, params, (error, result) => (error ? reject(error) : resolve(result))),
    );
  await post("Profiler.enable");
  await post("Profiler.setSamplingInterval", { interval: 20 });
  await post("Profiler.start");
  const started = performance.now();
  for (let i = 0; i < runs; i++) await contender.run();
  const elapsed = performance.now() - started;
  const { profile } = (await post("Profiler.stop")) as { profile: unknown };
  session.disconnect();
  writeFileSync(join(dir, "user-cold.cpuprofile"), JSON.stringify(profile));
  console.log(
    `user-cold: ${kind}, ${calls} call(s), ${runs} runs in ${elapsed.toFixed(1)} ms (profiled)`,
  );
}

interface ProfileNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}

/**
 * The functions with the most self time in a .cpuprofile, as "percent  name  (source)". Lines
 * of the bundle are named by the `// src/…` section esbuild wrote above them.
 */
export function topSelfTime(profilePath: string, bundlePath: string, count = 30): string[] {
  const profile = JSON.parse(readFileSync(profilePath, "utf8")) as { nodes: ProfileNode[] };
  const folder = dirname(bundlePath);
  const sectionsOf = new Map<string, string[]>();
  // The source file of each line of a bundle or of a chunk beside it, from esbuild's headers.
  const sourceOf = (url: string, lineNumber: number): string | undefined => {
    const file = url.startsWith("file://") ? fileURLToPath(url) : url;
    if (dirname(file) !== folder || !file.endsWith(".mjs")) return undefined;
    let sections = sectionsOf.get(file);
    if (!sections) {
      sections = [];
      let section = "bench";
      for (const line of readFileSync(file, "utf8").split("\n")) {
        const header = /^\/\/ ((?:src|bench)\/\S+)$/.exec(line);
        if (header) section = header[1]!;
        sections.push(section);
      }
      sectionsOf.set(file, sections);
    }
    return sections[lineNumber];
  };
  const byFunction = new Map<string, number>();
  let total = 0;
  for (const node of profile.nodes) {
    const hits = node.hitCount ?? 0;
    total += hits;
    const { functionName, url, lineNumber } = node.callFrame;
    const where =
      sourceOf(url, lineNumber) ?? (url.replace(/^file:\/\/.*node_modules\//, "") || "native");
    const key = `${functionName || "(anonymous)"}  (${where})`;
    byFunction.set(key, (byFunction.get(key) ?? 0) + hits);
  }
  return [...byFunction]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([key, hits]) => `${((hits / total) * 100).toFixed(1).padStart(5)}%  ${key}`);
}

/** Prints the functions that create the workload's promises, per unit, most first. */
export async function promiseSites(workload: string): Promise<void> {
  const make = WORKLOADS[workload];
  if (!make) throw new Error(`--promise-sites: give one of ${Object.keys(WORKLOADS).join(", ")}`);
  const contender = await make();
  await contender.run();
  const sites = new Map<string, number>();
  let total = 0;
  Error.stackTraceLimit = 8;
  const hook = createHook({
    init(_id, type) {
      if (type !== "PROMISE") return;
      total++;
      const frames = (new Error().stack ?? "").split("\n").slice(2);
      const frame = frames.find((line) => !line.includes("node:internal")) ?? "";
      const name = /at (?:async )?([^\s(]+)/.exec(frame)?.[1] ?? "(native)";
      sites.set(name, (sites.get(name) ?? 0) + 1);
    },
  });
  hook.enable();
  await contender.run();
  hook.disable();
  const per = (n: number) => (n / contender.units).toFixed(1).padStart(7);
  console.log(`${workload}: ${per(total)} promises per unit, by the function creating them:`);
  for (const [name, count] of [...sites].sort((a, b) => b[1] - a[1]).slice(0, 30)) {
    console.log(`${per(count)}  ${name}`);
  }
}
