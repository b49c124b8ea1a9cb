import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build, type Metafile } from "esbuild";
import { beforeAll, describe, expect, it } from "vitest";

/**
 * What an app importing `{ AgentLoop, tool }` loads at start, as a bundler with code splitting
 * sees src/: the JSON Schema validator (@cfworker/json-schema), the state's checks and
 * resume's checks load only when a run needs them (a `jsonSchema()` tool, messages from
 * `prepareStep`, a pre-model hook or a handoff filter, a resume). They must still be in the
 * build, behind a dynamic import, or a run that needs them could not find them.
 */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

const LAZY = [/@cfworker\/json-schema\//, /src\/state\/state-check\.ts$/, /src\/state\/resume\//];

interface Chunks {
  atStart: Set<string>;
  everywhere: Set<string>;
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
  return { atStart, everywhere };
}

describe("what `import { AgentLoop, tool }` loads at start", () => {
  let chunks: Chunks;
  beforeAll(async () => {
    const result = await build({
      stdin: {
        contents: 'export { AgentLoop, tool } from "./src/index.ts";',
        resolveDir: ROOT,
        sourcefile: "app.ts",
      },
      absWorkingDir: ROOT,
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
    chunks = chunksOf(result.metafile, entry!);
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
});
