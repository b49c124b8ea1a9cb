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
  ["index.ts"],
];

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
        if (to === from) continue;
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
      for (const target of graph.get(file) ?? []) visit(target);
      path.pop();
      done.add(file);
    };
    for (const file of files) visit(file);
    expect(circles).toEqual([]);
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
