import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build, type Metafile } from "esbuild";
import { build as buildPackage, type Options } from "tsup";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import packageConfig from "../../tsup.config.js";

/**
 * What an app importing `{ AgentLoop, tool }` loads at start, as a bundler with code splitting
 * sees src/: the JSON Schema validator (@cfworker/json-schema), the state's checks and
 * resume's checks, the reader of a streamed final answer, and `prepareStep` and the model
 * hooks load only when a run needs them (a `jsonSchema()` tool, messages from `prepareStep`, a
 * pre-model hook or a handoff filter, a resume, structured output, a loop with `prepareStep`, model
 * hooks or post-call hooks). They must still be in the
 * build, behind a dynamic import, or a run that needs them could not find them.
 */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

const LAZY = [
  /@cfworker\/json-schema\//,
  /src\/state\/state-check\.ts$/,
  /src\/state\/resume\//,
  /src\/output\/partial-json\.ts$/,
  /src\/loop\/model-hooks\.ts$/,
  /src\/loop\/prepare-answer\.ts$/,
  /src\/loop\/step-steering\.ts$/,
  /src\/loop\/post-call-guard\.ts$/,
  /src\/gate\/post-call\.ts$/,
];

interface Chunks {
  atStart: Set<string>;
  everywhere: Set<string>;
  /** How many output files load at start (the entry's included). */
  startFiles: number;
  metafile: Metafile;
}

/** The inputs of the chunks loaded at start (the entry and its static imports), and of all. */
function chunksOf(metafile: Metafile, entry: string): Chunks {
  const atStart = new Set<string>();
  const everywhere = new Set<string>();
  for (const output of Object.values(metafile.outputs)) {
    for (const input of Object.keys(output.inputs)) everywhere.add(input);
  }
  const seen = new Set<string>();
  const pending = [entry];
  while (pending.length > 0) {
    const path = pending.pop()!;
    if (seen.has(path)) continue;
    seen.add(path);
    const output = metafile.outputs[path]!;
    for (const input of Object.keys(output.inputs)) atStart.add(input);
    for (const imported of output.imports) {
      if (imported.kind === "import-statement" && !imported.external) pending.push(imported.path);
    }
  }
  return { atStart, everywhere, startFiles: seen.size, metafile };
}

/** Bundles `export { AgentLoop, tool } from <from>` with splitting; the chunks at start. */
async function appChunks(from: string, absWorkingDir: string): Promise<Chunks> {
  const result = await build({
    stdin: {
      contents: `export { AgentLoop, tool } from ${JSON.stringify(from)};`,
      resolveDir: absWorkingDir,
      sourcefile: "app.ts",
    },
    absWorkingDir,
    // The package's dependencies, for a package installed outside this repository.
    nodePaths: [join(ROOT, "node_modules")],
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    outdir: "out",
    write: false,
    metafile: true,
    external: ["zod", "zod/*"],
    logLevel: "silent",
  });
  const entry = Object.keys(result.metafile.outputs).find(
    (path) => result.metafile.outputs[path]!.entryPoint === "app.ts",
  );
  return chunksOf(result.metafile, entry!);
}

describe("what `import { AgentLoop, tool }` loads at start", () => {
  let chunks: Chunks;
  beforeAll(async () => {
    chunks = await appChunks("./src/index.ts", ROOT);
  });

  it.each(LAZY.map((pattern) => [String(pattern), pattern] as const))(
    "%s is in a chunk loaded on first need, not at start",
    (_, pattern) => {
      const inputs = (set: Set<string>) => [...set].filter((input) => pattern.test(input));
      expect(inputs(chunks.everywhere).length).toBeGreaterThan(0);
      expect(inputs(chunks.atStart)).toEqual([]);
    },
  );

  it("the loop itself is at start", () => {
    expect([...chunks.atStart].some((input) => input.endsWith("src/loop/run-loop.ts"))).toBe(true);
  });

  // A bundler makes a chunk of each set of entries and import()s that reach a module. A lazy
  // module that reached only part of the core split the start into 7 chunks (5 kB more of
  // min+gzip, each file compressed on its own): they reach all of it, through core.ts.
  it("the start is the entry and one chunk: no module loaded on first need splits it", () => {
    expect(chunks.startFiles).toBeLessThanOrEqual(2);
  });

  // core.ts is what the lazy modules import the core through; a module the core imports
  // statically must not, or the core would import itself (a cycle, with bindings read too early).
  it("only modules loaded on first need import core.ts", () => {
    const importers = Object.entries(chunks.metafile.inputs)
      .filter(([, input]) => input.imports.some((imported) => imported.path === "src/core.ts"))
      .map(([path]) => path)
      .filter((path) => path !== "src/index.ts");
    expect(importers.length).toBeGreaterThan(3);
    expect(importers.filter((path) => chunks.atStart.has(path))).toEqual([]);
  });
});

/**
 * The same through the built package, as users install it: the build's own chunks merge
 * modules, and a bundler follows every import of a chunk it keeps. The ESM build here is the
 * package's (tsup.config.ts), without types or maps, installed under node_modules/tollgate.
 */
describe("what `import { AgentLoop, tool }` from the built package loads at start", () => {
  let chunks: Chunks;
  let app: string;
  beforeAll(async () => {
    app = mkdtempSync(join(tmpdir(), "tollgate-core-reach-"));
    const home = join(app, "node_modules", "tollgate");
    mkdirSync(home, { recursive: true });
    copyFileSync(join(ROOT, "package.json"), join(home, "package.json"));
    // The package is two builds (the core, then its subpaths) into one dist/.
    for (const config of packageConfig as Options[]) {
      await buildPackage({
        ...config,
        config: false,
        format: ["esm"],
        dts: false,
        sourcemap: false,
        silent: true,
        outDir: join(home, "dist"),
      });
    }
    writeFileSync(join(app, "package.json"), '{ "type": "module" }');
    chunks = await appChunks("tollgate", app);
  }, 60_000);
  afterAll(() => rmSync(app, { recursive: true, force: true }));

  it("the JSON Schema validator is in a chunk loaded on first need, not at start", () => {
    const validator = (set: Set<string>) =>
      [...set].filter((input) => /@cfworker\/json-schema\//.test(input));
    expect(validator(chunks.everywhere).length).toBeGreaterThan(0);
    expect(validator(chunks.atStart)).toEqual([]);
  });

  it("the loop itself is at start", () => {
    expect([...chunks.atStart].some((input) => input.includes("node_modules/tollgate/dist/"))).toBe(
      true,
    );
  });

  it("the app's start is its entry and one chunk of the package", () => {
    expect(chunks.startFiles).toBeLessThanOrEqual(2);
  });

  // 10 files before the lazy modules reached the whole core (see core.ts).
  it('Node loads at most 4 files of the package for `import "tollgate"`', () => {
    const core = staticGraph(join(app, "node_modules", "tollgate", "dist", "index.js"));
    expect(core.size).toBeLessThanOrEqual(4);
  });

  // Node loads every file of an entry's static graph, and pays for each one it resolves, reads
  // and links: a chunk shared with a subpath entry is one more file for every app.
  it('the files Node loads for `import "tollgate"` are the core\'s own: no subpath entry shares one', () => {
    const dist = join(app, "node_modules", "tollgate", "dist");
    const core = staticGraph(join(dist, "index.js"));
    expect(core.size).toBeGreaterThan(1);
    const subpaths = readdirSync(dist, { recursive: true, encoding: "utf8" }).filter(
      (file) => /(^|\/)index\.js$/.test(file) && file !== "index.js",
    );
    expect(subpaths.length).toBeGreaterThan(10);
    for (const entry of subpaths) {
      const shared = [...staticGraph(join(dist, entry))].filter((file) => core.has(file));
      expect({ entry, shared }).toEqual({ entry, shared: [] });
    }
  });
});

/** The built files an ES module imports statically, itself included, followed to the end. */
function staticGraph(file: string): Set<string> {
  const seen = new Set<string>();
  const pending = [file];
  while (pending.length > 0) {
    const next = pending.pop()!;
    if (seen.has(next)) continue;
    seen.add(next);
    const text = readFileSync(next, "utf8");
    for (const [, specifier] of text.matchAll(
      /^(?:import|export)[\s{*][^;]*?["'](\.{1,2}\/[^"']+)["']/gm,
    )) {
      pending.push(resolve(dirname(next), specifier!));
    }
  }
  return seen;
}
