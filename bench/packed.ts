/**
 * Section "packed": tollgate as users get it. The package is built with its own tsup config
 * (into a temp dir, not dist/), packed with `npm pack`, and unpacked into a scratch app's
 * node_modules next to copies of its dependencies and zod, as test/runtime/driver.ts's
 * `installPacked` does: `tollgate` resolves to the tarball's dist/ through its package.json
 * exports. Then: import time in fresh processes, interleaved, and the core's size as a user's
 * bundler (esbuild) sees `import { AgentLoop, tool } from "tollgate"`, with and without code
 * splitting, beside the AI SDK's `generateText` and `tool`.
 */
import { execFileSync, spawnSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { pathToFileURL } from "node:url";
import { gzipSync } from "node:zlib";
import { build, type Metafile } from "esbuild";
import { makeBuildDir, ROOT } from "./compile.js";
import { type Stats, stats } from "./harness.js";
import { kB, num, type SectionResult, table } from "./report.js";

// ---------------------------------------------------------------------------------------------
// the scratch app

/** The package packed and installed into a scratch app. */
interface PackedApp {
  /** The app's folder: `node_modules/tollgate` is the unpacked tarball. */
  app: string;
  tarball: { name: string; bytes: number; unpackedBytes: number; files: number };
  buildMs: number;
  versions: { tollgate: string; zod: string };
}

/** Runs a command; throws with its output when it fails. */
function exec(file: string, args: string[], cwd: string): string {
  try {
    return execFileSync(file, args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string; message: string };
    throw new Error(`${file} ${args.join(" ")} failed: ${e.message}\n${e.stdout}\n${e.stderr}`);
  }
}

/**
 * Builds the package into `stage` with the project's tsup config (only `outDir` and `dts`
 * changed: declarations do not load at run time, and dist/ belongs to whoever else works in
 * the tree), beside the other files of its `files` list that hold no glob.
 */
function buildStage(stage: string): number {
  const started = performance.now();
  const script = `import { build } from "tsup"; await build({ outDir: ${JSON.stringify(join(stage, "dist"))}, dts: false, silent: true });`;
  exec(process.execPath, ["--input-type=module", "-e", script], ROOT);
  const manifest = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
    files: string[];
  };
  for (const entry of ["package.json", ...manifest.files]) {
    if (entry === "dist" || /[*!]/.test(entry) || !existsSync(join(ROOT, entry))) continue;
    cpSync(join(ROOT, entry), join(stage, entry), { recursive: true });
  }
  return performance.now() - started;
}

/** `npm pack` of the staged package, unpacked into a new app with its dependencies and zod. */
function installPacked(work: string): PackedApp {
  const stage = join(work, "stage");
  mkdirSync(stage);
  const buildMs = buildStage(stage);
  const [packed] = JSON.parse(
    exec("npm", ["pack", "--json", "--pack-destination", work], stage),
  ) as [{ filename: string; size: number; unpackedSize: number; entryCount: number }];
  const app = join(work, "app");
  const modules = join(app, "node_modules");
  mkdirSync(join(modules, "tollgate"), { recursive: true });
  exec(
    "tar",
    ["-xzf", join(work, packed!.filename), "-C", join(modules, "tollgate"), "--strip-components=1"],
    work,
  );
  const manifest = JSON.parse(readFileSync(join(modules, "tollgate", "package.json"), "utf8"));
  // What `npm install tollgate zod` puts beside it: its dependencies and its one required peer.
  const copied = new Set<string>();
  const copy = (name: string) => {
    if (copied.has(name)) return;
    copied.add(name);
    const from = join(ROOT, "node_modules", name);
    cpSync(from, join(modules, name), { recursive: true, dereference: true });
    const own = JSON.parse(readFileSync(join(from, "package.json"), "utf8"));
    for (const dep of Object.keys(own.dependencies ?? {})) {
      if (!existsSync(join(from, "node_modules", dep))) copy(dep);
    }
  };
  for (const dep of [...Object.keys(manifest.dependencies ?? {}), "zod"]) copy(dep);
  const zod = JSON.parse(readFileSync(join(modules, "zod", "package.json"), "utf8")).version;
  writeFileSync(
    join(app, "package.json"),
    JSON.stringify({
      name: "tollgate-packed-bench",
      private: true,
      type: "module",
      dependencies: { tollgate: manifest.version, zod },
    }),
  );
  return {
    app,
    tarball: {
      name: packed!.filename,
      bytes: packed!.size,
      unpackedBytes: packed!.unpackedSize,
      files: packed!.entryCount,
    },
    buildMs,
    versions: { tollgate: manifest.version, zod },
  };
}

/** Throws unless `tollgate` and `zod` resolve, from the app, to its own node_modules. */
function checkResolution(app: string): void {
  writeFileSync(
    join(app, "resolve.mjs"),
    'process.stdout.write(JSON.stringify({ tollgate: import.meta.resolve("tollgate"), zod: import.meta.resolve("zod") }));',
  );
  const got = JSON.parse(exec(process.execPath, ["resolve.mjs"], app)) as Record<string, string>;
  const base = pathToFileURL(realpathSync(app)).href;
  const expected = `${base}/node_modules/tollgate/dist/index.js`;
  if (got.tollgate !== expected || !got.zod?.startsWith(`${base}/node_modules/zod/`)) {
    throw new Error(
      `bench check failed: the app resolves ${JSON.stringify(got)}, expected tollgate at ${expected}`,
    );
  }
}

// ---------------------------------------------------------------------------------------------
// import time

/**
 * One contender of the import-time table: a command run from the app folder. An entry file
 * prints `performance.now()` after its imports (ms since the process started) and throws when
 * what it imported is not what it expected.
 */
interface Starter {
  name: string;
  args: string[];
  entry?: { file: string; source: string };
  /** Its entry prints what one import took in the process (ms, CPU ms), not the time since start. */
  inProcess?: true;
}

// The ms since the process started, and the CPU ms the process has used (user + system, every
// thread): time other processes take on the machine is not in it.
const AFTER_IMPORTS =
  'const cpu = process.cpuUsage(); process.stdout.write(performance.now() + " " + (cpu.user + cpu.system) / 1000);';

const STARTERS: Starter[] = [
  { name: "`node -e 0`", args: ["-e", "0"] },
  {
    name: "empty ESM entry",
    args: ["empty.mjs"],
    entry: { file: "empty.mjs", source: AFTER_IMPORTS },
  },
  {
    name: '`import { z } from "zod"`',
    args: ["zod.mjs"],
    entry: {
      file: "zod.mjs",
      source: `import { z } from "zod";\nif (typeof z.object !== "function") throw new Error("zod has no z.object");\n${AFTER_IMPORTS}`,
    },
  },
  {
    name: '`import { AgentLoop, tool } from "tollgate"`',
    args: ["tollgate.mjs"],
    entry: {
      file: "tollgate.mjs",
      source: `import { AgentLoop, tool } from "tollgate";\nif (typeof AgentLoop !== "function" || typeof tool !== "function") throw new Error("tollgate: no AgentLoop or tool");\n${AFTER_IMPORTS}`,
    },
  },
  {
    // tollgate loaded later: zod is loaded, then the one dynamic import of tollgate is timed,
    // in wall and CPU ms (context for the difference above, which is what a static app pays).
    name: 'zod, then `await import("tollgate")` timed',
    args: ["tollgate-after-zod.mjs"],
    inProcess: true,
    entry: {
      file: "tollgate-after-zod.mjs",
      source: `import { z } from "zod";
if (typeof z.object !== "function") throw new Error("zod has no z.object");
const cpu0 = process.cpuUsage(); const t0 = performance.now();
const { AgentLoop, tool } = await import("tollgate");
const took = performance.now() - t0; const cpu = process.cpuUsage(cpu0);
if (typeof AgentLoop !== "function" || typeof tool !== "function") throw new Error("tollgate: no AgentLoop or tool");
process.stdout.write(took + " " + (cpu.user + cpu.system) / 1000);`,
    },
  },
];

/**
 * Wall time of each process, and `performance.now()` and the CPU time used at the end of each
 * entry file, in ms.
 */
interface StartTimes {
  wall: number[][];
  atEnd: number[][];
  cpuAtEnd: number[][];
}

/** Runs every starter `reps` times in interleaved rounds (A B C D A B C D …), after one unrecorded round. */
function startTimes(app: string, reps: number): StartTimes {
  for (const { entry } of STARTERS) {
    if (entry) writeFileSync(join(app, entry.file), entry.source);
  }
  const wall = STARTERS.map(() => [] as number[]);
  const atEnd = STARTERS.map(() => [] as number[]);
  const cpuAtEnd = STARTERS.map(() => [] as number[]);
  for (let round = -1; round < reps; round++) {
    STARTERS.forEach((starter, i) => {
      const started = performance.now();
      const child = spawnSync(process.execPath, starter.args, { cwd: app, encoding: "utf8" });
      const elapsed = performance.now() - started;
      if (child.status !== 0) {
        throw new Error(
          `bench check failed: ${starter.name} exited ${child.status}\n${child.stderr}`,
        );
      }
      if (round < 0) return;
      wall[i]!.push(elapsed);
      if (!starter.entry) return;
      const [at, cpu] = child.stdout.split(" ").map(Number) as [number, number];
      if (!Number.isFinite(at) || at <= 0 || !Number.isFinite(cpu) || cpu < 0) {
        throw new Error(
          `bench check failed: ${starter.name} printed ${JSON.stringify(child.stdout)}`,
        );
      }
      atEnd[i]!.push(at);
      cpuAtEnd[i]!.push(cpu);
    });
  }
  return { wall, atEnd, cpuAtEnd };
}

/** `a − b`, round by round (the two ran back to back in each round). */
const minus = (a: number[], b: number[]) => stats(a.map((value, round) => value - b[round]!));

// ---------------------------------------------------------------------------------------------
// size

/** One output file of a bundle. */
interface Chunk {
  file: string;
  minBytes: number;
  gzipBytes: number;
  /** Loaded when the app starts: the entry and what it imports statically. */
  atStart: boolean;
  /** Minified bytes by npm package, largest first. */
  origins: { origin: string; bytes: number }[];
}

/** A user's app file bundled (esbuild: minify, ESM, platform node, es2022, zod external). */
interface AppBundle {
  name: string;
  splitting: boolean;
  chunks: Chunk[];
}

/** An app's file: imports two names and uses them, so neither is shaken out. */
const APP_FILES = {
  tollgate: 'import { AgentLoop, tool } from "tollgate";\nconsole.log(AgentLoop, tool);\n',
  ai: 'import { generateText, tool } from "ai";\nconsole.log(generateText, tool);\n',
} as const;

/** The npm package a bundled input came from ("app" for the app's own file). */
const originOf = (path: string) =>
  /node_modules\/((?:@[^/]+\/)?[^/]+)\/(?!.*node_modules\/)/.exec(path)?.[1] ?? "app";

function byOrigin(inputs: Record<string, { bytesInOutput: number }>) {
  const bytes = new Map<string, number>();
  for (const [path, input] of Object.entries(inputs)) {
    bytes.set(originOf(path), (bytes.get(originOf(path)) ?? 0) + input.bytesInOutput);
  }
  return [...bytes]
    .filter(([, n]) => n > 0)
    .map(([origin, n]) => ({ origin, bytes: n }))
    .sort((a, b) => b.bytes - a.bytes);
}

/**
 * Bundles the app file in `dir` (where its imports resolve), then runs the entry with node and
 * checks it printed the two values: a bundle that does not run cannot look small.
 */
async function bundleApp(
  dir: string,
  library: keyof typeof APP_FILES,
  splitting: boolean,
): Promise<AppBundle> {
  const source = `${library}-app.mjs`;
  writeFileSync(join(dir, source), APP_FILES[library]);
  const outdir = join(dir, `out-${library}-${splitting ? "split" : "one"}`);
  const result = await build({
    absWorkingDir: dir,
    entryPoints: [join(dir, source)],
    bundle: true,
    minify: true,
    format: "esm",
    platform: "node",
    target: "es2022",
    external: ["zod", "zod/*"],
    // CommonJS inside an ESM bundle (the AI SDK's @vercel/oidc requires "path") needs a real
    // `require`, as a user's Node bundle config gives it; the same line for both libraries.
    banner: {
      js: 'import{createRequire as __cr}from"node:module";const require=__cr(import.meta.url);',
    },
    splitting,
    outdir,
    outExtension: { ".js": ".mjs" },
    metafile: true,
    write: true,
    logLevel: "silent",
  });
  const outputs = result.metafile.outputs;
  const inputs = Object.keys(result.metafile.inputs);
  const home = library === "tollgate" ? "node_modules/tollgate/dist/" : "node_modules/ai/";
  if (!inputs.some((path) => path.includes(home))) {
    throw new Error(`bench check failed: the ${library} bundle has no input from ${home}`);
  }
  const entry = Object.keys(outputs).find((file) => outputs[file]!.entryPoint !== undefined)!;
  if (!splitting && Object.keys(outputs).length !== 1) {
    throw new Error(
      `bench check failed: the ${library} bundle without splitting has several files`,
    );
  }
  const atStart = staticClosure(outputs, entry);
  const chunks = Object.entries(outputs).map(([file, output]) => ({
    file: relative(outdir, join(dir, file)),
    minBytes: output.bytes,
    gzipBytes: gzipSync(readFileSync(join(dir, file)), { level: 9 }).length,
    atStart: atStart.has(file),
    origins: byOrigin(output.inputs),
  }));
  const run = spawnSync(process.execPath, [join(dir, entry)], { cwd: dir, encoding: "utf8" });
  const printed = run.stdout.trim();
  const expected =
    library === "tollgate" ? /^\[class [^\]]*\] \[Function/ : /^\[AsyncFunction[^\]]*\] \[Function/;
  if (run.status !== 0 || !expected.test(printed)) {
    throw new Error(
      `bench check failed: the ${library} bundle (splitting ${splitting}) printed ${JSON.stringify(printed)}, exit ${run.status}\n${run.stderr}`,
    );
  }
  return {
    name: library === "tollgate" ? "tollgate" : "AI SDK 7",
    splitting,
    chunks: chunks.sort((a, b) => Number(b.atStart) - Number(a.atStart) || b.minBytes - a.minBytes),
  };
}

/** The entry's output and every output it imports statically, transitively. */
function staticClosure(outputs: Metafile["outputs"], entry: string): Set<string> {
  const seen = new Set([entry]);
  const queue = [entry];
  while (queue.length > 0) {
    for (const imported of outputs[queue.pop()!]!.imports) {
      if (imported.external || imported.kind !== "import-statement") continue;
      if (!seen.has(imported.path)) {
        seen.add(imported.path);
        queue.push(imported.path);
      }
    }
  }
  return seen;
}

const sum = (chunks: Chunk[], key: "minBytes" | "gzipBytes") =>
  chunks.reduce((total, chunk) => total + chunk[key], 0);

const origins = (list: { origin: string; bytes: number }[]) =>
  list.map((o) => `${o.origin} ${kB(o.bytes)}`).join(", ");

// ---------------------------------------------------------------------------------------------
// the section

/** Section "packed": builds, packs and installs tollgate, then times its import and sizes it. */
export async function packedSection(reps: number): Promise<SectionResult> {
  const work = mkdtempSync(join(tmpdir(), "tollgate-packed-"));
  const peers = makeBuildDir();
  try {
    const packed = installPacked(work);
    checkResolution(packed.app);
    const times = startTimes(packed.app, reps);
    const loaded = filesAtStart(join(packed.app, "node_modules", "tollgate", "dist", "index.js"));
    const bundles: AppBundle[] = [];
    for (const splitting of [false, true]) {
      bundles.push(await bundleApp(packed.app, "tollgate", splitting));
      bundles.push(await bundleApp(peers.dir, "ai", splitting));
    }
    return report(packed, times, bundles, reps, loaded);
  } finally {
    peers.dispose();
    rmSync(work, { recursive: true, force: true });
  }
}

/** What Node loads of the package for `import "tollgate"`: its own files, and the other packages. */
interface FilesAtStart {
  files: number;
  bytes: number;
  packages: string[];
}

/**
 * The package's files an ES module's static imports reach (itself included), their bytes, and the
 * other packages they import by name (static imports only: an `import()` loads later): what Node
 * resolves, reads and links before the entry runs.
 */
function filesAtStart(entry: string): FilesAtStart {
  const seen = new Set<string>();
  const packages = new Set<string>();
  const pending = [entry];
  let bytes = 0;
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const text = readFileSync(file, "utf8");
    bytes += Buffer.byteLength(text);
    for (const [, specifier] of text.matchAll(/^(?:import|export)[\s{*][^;]*?["']([^"']+)["']/gm)) {
      if (specifier!.startsWith(".")) pending.push(join(dirname(file), specifier!));
      else if (!specifier!.startsWith("node:")) packages.add(packageName(specifier!));
    }
  }
  return { files: seen.size, bytes, packages: [...packages].sort() };
}

/** "zod" for "zod/v4/core", "@scope/name" for "@scope/name/sub". */
const packageName = (specifier: string) =>
  specifier
    .split("/")
    .slice(0, specifier.startsWith("@") ? 2 : 1)
    .join("/");

function report(
  packed: PackedApp,
  times: StartTimes,
  bundles: AppBundle[],
  reps: number,
  loaded: FilesAtStart,
): SectionResult {
  const [bare, empty, zod, tollgate, afterZod] = [0, 1, 2, 3, 4];
  const endRow = (i: number) => {
    const s = stats(times.atEnd[i]!);
    return [num(s.median), num(s.min), num(s.max)];
  };
  const wallRow = (i: number) => {
    const s = stats(times.wall[i]!);
    return [num(s.median), num(s.min), num(s.max)];
  };
  // Each row by its starter's own index (the timings' index); the in-process one has a line of its own.
  const importRows = STARTERS.flatMap((starter, i) =>
    starter.inProcess
      ? []
      : [
          [
            i === tollgate ? `**${starter.name}**` : starter.name,
            ...(starter.entry ? endRow(i) : ["–", "", ""]),
            ...wallRow(i),
          ],
        ],
  );
  const cold = minus(times.atEnd[tollgate]!, times.atEnd[empty]!);
  const overZod = minus(times.atEnd[tollgate]!, times.atEnd[zod]!);
  const zodCost = minus(times.atEnd[zod]!, times.atEnd[empty]!);
  const cpuOverZod = minus(times.cpuAtEnd[tollgate]!, times.cpuAtEnd[zod]!);
  const cpuCold = minus(times.cpuAtEnd[tollgate]!, times.cpuAtEnd[empty]!);
  const wallCold = minus(times.wall[tollgate]!, times.wall[bare]!);
  const wallOverZod = minus(times.wall[tollgate]!, times.wall[zod]!);
  const range = (s: Stats) => `**${num(s.median)} ms** (${num(s.min)}–${num(s.max)})`;
  const inProcess = stats(times.atEnd[afterZod]!);
  const inProcessCpu = stats(times.cpuAtEnd[afterZod]!);

  const find = (name: string, splitting: boolean) =>
    bundles.find((b) => b.name === name && b.splitting === splitting)!;
  const startOf = (b: AppBundle) => b.chunks.filter((c) => c.atStart);
  const lazyOf = (b: AppBundle) => b.chunks.filter((c) => !c.atStart);
  const sizeRows = bundles
    .sort((a, b) => Number(a.splitting) - Number(b.splitting))
    .flatMap((b) => {
      const start = startOf(b);
      const lazy = lazyOf(b);
      const label = `${b.name}, ${b.splitting ? "`splitting: true`" : "one file"}`;
      if (!b.splitting) {
        return [
          [
            label,
            "everything",
            "1",
            kB(sum(start, "minBytes")),
            `**${kB(sum(start, "gzipBytes"))}**`,
          ],
        ];
      }
      return [
        [
          label,
          "at start (entry + its static imports)",
          String(start.length),
          kB(sum(start, "minBytes")),
          `**${kB(sum(start, "gzipBytes"))}**`,
        ],
        [
          label,
          "lazy chunks (dynamic imports)",
          String(lazy.length),
          kB(sum(lazy, "minBytes")),
          kB(sum(lazy, "gzipBytes")),
        ],
      ];
    });
  const one = find("tollgate", false).chunks[0]!;
  const aiOne = find("AI SDK 7", false).chunks[0]!;
  const split = find("tollgate", true);
  const aiSplit = find("AI SDK 7", true);
  const start = sum(startOf(split), "gzipBytes");
  const aiStart = sum(startOf(aiSplit), "gzipBytes");
  const lazyList = lazyOf(split)
    .map((c) => `\`${c.file}\` ${kB(c.gzipBytes)} gzip (${origins(c.origins)})`)
    .join("; ");

  return {
    markdown: `## 13. What users get: the packed package

tollgate ${packed.versions.tollgate} built with its own tsup config (declarations off, into a temp
dir; ${num(packed.buildMs / 1000)} s), \`npm pack\`ed (${kB(packed.tarball.bytes)} tarball,
${kB(packed.tarball.unpackedBytes)} unpacked, ${packed.tarball.files} files) and unpacked into a scratch
app's \`node_modules/tollgate\` beside copies of its dependencies and zod ${packed.versions.zod}, as
\`npm run test:runtimes\` installs it: from the app, \`tollgate\` resolves to
\`node_modules/tollgate/dist/index.js\` through the package's exports (checked). Nothing of src/ or
dist/ is loaded.

### Import time

Fresh processes started from the app folder, ${reps} of each, interleaved (one round first, not
recorded). Each entry is an ESM file that prints \`performance.now()\` after its imports: the ms
from the process's start to the imports done, start-up included; and the CPU ms the process had
used by then (\`process.cpuUsage()\`, user + system, the JIT's threads included), a second view
of the same work that other processes' load does not add to. It checks what it imported
(\`z.object\`, \`AgentLoop\` and \`tool\` are functions). tollgate's entry loads zod too, through
the package. The wall time of the whole process (spawn to exit) is context.

${table(
  [
    "entry",
    "start → imports done, median ms",
    "min",
    "max",
    "process wall, median ms",
    "min",
    "max",
  ],
  importRows,
)}

Differences taken round by round (median, min–max):

- **tollgate over zod** (tollgate's entry − zod's): ${range(overZod)}; by wall time ${num(wallOverZod.median)} ms; by the CPU time each entry had used when its imports were done, ${range(cpuOverZod)} (cold, over the empty entry: ${num(cpuCold.median)} ms).
- tollgate cold (tollgate's entry − the empty entry): ${range(cold)}; by wall time, over \`node -e 0\`: ${num(wallCold.median)} ms.
- zod alone (zod's entry − the empty entry): ${num(zodCost.median)} ms.
- tollgate loaded later, by \`await import("tollgate")\` timed in a process that has loaded zod
  (a fresh process in each round): ${range(inProcess)}; by CPU time ${range(inProcessCpu)}. An app
  that imports both statically loads them in one graph, which costs less: the figures above.
- What Node loads of the package for \`import "tollgate"\` (the static imports of
  \`dist/index.js\`, followed): ${loaded.files} files, ${kB(loaded.bytes)}; other packages it imports:
  ${loaded.packages.map((name) => `\`${name}\``).join(", ")}.

### Size as a user's bundler sees it

esbuild of an app file, \`${APP_FILES.tollgate.split("\n")[0]} console.log(AgentLoop, tool)\`,
resolved from the installed package (and the AI SDK's \`generateText, tool\` from bench/'s copy):
bundle, minify, ESM, platform node, target es2022, \`zod\` and \`zod/*\` external; each output file
gzip -9 on its own. Every bundle is run once with node and must print the two values. 1 kB =
1,000 bytes.

${table(["bundle", "what", "files", "min", "min+gzip"], sizeRows)}

AI SDK ÷ tollgate, min+gzip: **${num(aiOne.gzipBytes / one.gzipBytes)}×** in one file,
**${num(aiStart / start)}×** at start with splitting.

tollgate's one-file bundle by package (minified bytes): ${origins(one.origins)}.
With splitting, its lazy chunks: ${lazyList || "none"}.
The AI SDK's by package: ${origins(aiOne.origins)}.
`,
    targets: [
      {
        target: "import ≤ 10 ms over zod, the packed package",
        measured: `${num(overZod.median)} ms (cold: ${num(cold.median)} ms)`,
        met: overZod.median <= 10,
      },
      {
        target: "core for `AgentLoop` + `tool` ≤ 40 kB min+gzip, packed, one file",
        measured: kB(one.gzipBytes),
        met: one.gzipBytes <= 40_000,
      },
      {
        target: "core for `AgentLoop` + `tool` ≤ 40 kB min+gzip, packed, at start with splitting",
        measured: kB(start),
        met: start <= 40_000,
      },
    ],
    figures: {
      "packed.importOverZodMs": overZod.median,
      "packed.importOverZodCpuMs": cpuOverZod.median,
      "packed.importInProcessMs": inProcess.median,
      "packed.coreKB": one.gzipBytes / 1000,
      "packed.coreAtStartKB": start / 1000,
      "packed.filesAtStart": loaded.files,
    },
  };
}
