import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

/**
 * ARCHITECTURE.md's layers, kept by a test: every relative import in src/ points to its own
 * folder or a layer below, and no files import each other in a circle.
 */
const SRC = resolve(dirname(fileURLToPath(import.meta.url)), "../../src");

/** The core's layers, bottom first; a folder may import its own and the ones before it. */
const CORE = [
  ["types"],
  ["errors.ts"],
  ["util"],
  ["tools", "model"],
  ["state", "output"],
  ["gate"],
  ["options"],
  ["loop"],
  ["api"],
  ["core.ts"],
  ["index.ts"],
];

/**
 * The modules the core loads by `import()` that import its public API from core.ts, as a
 * subpath imports "tollgate": each loads after the core, and reaching all of it keeps a
 * bundler's start in one chunk (see core.ts). That import is the one that may point up, and the
 * circle it closes (core, `import()`, module, core) is not counted: it has a dynamic edge, and
 * core-reach.test.ts checks that nothing the core imports statically imports core.ts.
 */
const LOADED_LATER = new Set([
  "api/prepare-resume.ts",
  "state/resume/plan.ts",
  "state/state-check.ts",
  "loop/prepare-answer.ts",
]);
const CORE_ENTRY = join(SRC, "core.ts");

/** Whether `file`'s import of `target` is a module loaded later reaching for the core's API. */
const extendsCore = (file: string, target: string) =>
  target === CORE_ENTRY && LOADED_LATER.has(relative(SRC, file));

/** The entry points beside the core: they import it as "tollgate", plus these folders only. */
const ENTRIES: Record<string, string[]> = {
  openai: ["util", "http"],
  anthropic: ["util", "http"],
  gemini: ["util", "http"],
  http: ["util"],
  "ai-sdk": ["util", "http"],
  testing: ["util"],
  vitest: ["util"],
  "file-store": ["util"],
  mcp: ["util"],
  otel: ["util"],
  redis: ["util"],
  postgres: ["util"],
  "event-stream": ["util", "http"],
  ui: ["util"],
  rules: ["util"],
  dbos: ["util"],
  cedar: ["util"],
  restate: ["util"],
};

const rank = new Map(CORE.flatMap((names, i) => names.map((name) => [name, i] as const)));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

/** The relative imports of a file (static, dynamic and type-only), as absolute .ts paths. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, "utf8");
  const specs = [...text.matchAll(/(?:from|import\()\s*["'](\.{1,2}\/[^"']+)["']/g)].map(
    (match) => match[1]!,
  );
  return specs.map((spec) => resolve(dirname(file), spec).replace(/\.js$/, ".ts"));
}

/** A file's top folder under src/ ("loop"), or its name when it stands at the top. */
const roomOf = (file: string) => relative(SRC, file).split("/")[0]!;

const files = sourceFiles(SRC);
const graph = new Map(files.map((file) => [file, importsOf(file)]));

describe("the layers of src/ (ARCHITECTURE.md)", () => {
  it("every folder of src/ has its place in the layers", () => {
    const rooms = new Set(files.map(roomOf));
    const placed = [...rooms].filter((room) => !rank.has(room) && !(room in ENTRIES));
    expect(placed).toEqual([]);
  });

  it("no import points up a layer, and the entries reach the core only as tollgate", () => {
    const wrong: string[] = [];
    for (const [file, imports] of graph) {
      const from = roomOf(file);
      for (const target of imports) {
        const to = roomOf(target);
        if (to === from || extendsCore(file, target)) continue;
        const allowed =
          from in ENTRIES
            ? ENTRIES[from]!.includes(to)
            : rank.has(to) && rank.get(to)! < rank.get(from)!;
        if (!allowed) wrong.push(`${relative(SRC, file)} -> ${relative(SRC, target)}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it("no files import each other in a circle", () => {
    const circles: string[] = [];
    const done = new Set<string>();
    const path: string[] = [];
    const visit = (file: string) => {
      const at = path.indexOf(file);
      if (at !== -1) {
        circles.push(
          path
            .slice(at)
            .concat(file)
            .map((f) => relative(SRC, f))
            .join(" -> "),
        );
        return;
      }
      if (done.has(file)) return;
      path.push(file);
      for (const target of graph.get(file) ?? []) if (!extendsCore(file, target)) visit(target);
      path.pop();
      done.add(file);
    };
    for (const file of files) visit(file);
    expect(circles).toEqual([]);
  });

  it("each module that reaches for the core's API from core.ts does, and nothing else does", () => {
    const importers = [...graph]
      .filter(([, imports]) => imports.includes(CORE_ENTRY))
      .map(([file]) => relative(SRC, file))
      .sort();
    expect(importers).toEqual(["index.ts", ...LOADED_LATER].sort());
  });

  it("at most six files stand flat at src/, and none of src/ is over 400 lines", () => {
    const flat = files.filter((file) => dirname(file) === SRC);
    expect(flat.length).toBeLessThanOrEqual(6);
    const long = files
      .map((file) => [relative(SRC, file), readFileSync(file, "utf8").split("\n").length] as const)
      .filter(([, lines]) => lines > 401);
    expect(long).toEqual([]);
  });
});
