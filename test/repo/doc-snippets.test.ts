/**
 * Every ```ts block in README.md and docs/*.md compiles when pasted into a project of its own:
 * each block is type-checked as its own module (with "tollgate" and "tollgate/*" resolved to
 * src/, as tsconfig.json's paths do, and `zod` installed), so a block must be complete code —
 * its imports and every name it uses. One TypeScript program checks all blocks at once.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { docPages } from "../support/doc-pages.js";

const root = join(import.meta.dirname, "..", "..");

/** One ```ts block: the file it is in, the line its code starts on, and its code. */
interface Snippet {
  file: string;
  line: number;
  code: string;
}

/** The ```ts blocks of a Markdown file. */
function snippetsOf(file: string, markdown: string): Snippet[] {
  const snippets: Snippet[] = [];
  const lines = markdown.split("\n");
  let open: { line: number; code: string[] } | undefined;
  let fence: string | undefined;
  for (const [index, text] of lines.entries()) {
    if (open) {
      if (text.trim() === "```") {
        snippets.push({ file, line: open.line, code: open.code.join("\n") });
        open = undefined;
      } else open.code.push(text);
    } else if (fence) {
      if (text.trim() === "```") fence = undefined;
    } else if (/^\s*```(ts|typescript)\s*$/.test(text)) {
      open = { line: index + 2, code: [] };
    } else if (/^\s*```/.test(text)) fence = text;
  }
  if (open) throw new Error(`${file}:${open.line - 1}: a \`\`\`ts block is never closed`);
  return snippets;
}

const markdownFiles = docPages(root);

const snippets = markdownFiles.flatMap((file) =>
  snippetsOf(file, readFileSync(join(root, file), "utf8")),
);

/** Type-checks every snippet in one program; the diagnostics of each, as `file:line:col message`. */
function checkSnippets(all: Snippet[]): Map<Snippet, string[]> {
  const config = ts.getParsedCommandLineOfConfigFile(
    join(root, "tsconfig.json"),
    {},
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} },
  );
  if (!config) throw new Error("tsconfig.json could not be read");
  const options: ts.CompilerOptions = {
    ...config.options,
    noEmit: true,
    // A pasted block is a module of its own even when it imports nothing.
    moduleDetection: ts.ModuleDetectionKind.Force,
  };
  // Virtual files at the root, so "zod" resolves from node_modules and "tollgate" through paths.
  const byPath = new Map(
    all.map((snippet, index) => [
      join(root, `__snippet_${index}__.ts`).replaceAll("\\", "/"),
      snippet,
    ]),
  );
  const host = ts.createCompilerHost(options, true);
  const readFile = host.readFile.bind(host);
  const getSourceFile = host.getSourceFile.bind(host);
  host.fileExists = (path) => byPath.has(path) || ts.sys.fileExists(path);
  host.readFile = (path) => byPath.get(path)?.code ?? readFile(path);
  host.getSourceFile = (path, language, onError, create) => {
    const snippet = byPath.get(path);
    return snippet
      ? ts.createSourceFile(path, snippet.code, language, true, ts.ScriptKind.TS)
      : getSourceFile(path, language, onError, create);
  };
  const program = ts.createProgram([...byPath.keys()], options, host);
  const result = new Map<Snippet, string[]>();
  for (const [path, snippet] of byPath) {
    const source = program.getSourceFile(path);
    if (!source) throw new Error(`snippet ${path} was not loaded`);
    const diagnostics = [
      ...program.getSyntacticDiagnostics(source),
      ...program.getSemanticDiagnostics(source),
    ];
    result.set(
      snippet,
      diagnostics.map((diagnostic) => {
        const at = source.getLineAndCharacterOfPosition(diagnostic.start ?? 0);
        const text = ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n");
        return `${snippet.file}:${snippet.line + at.line}:${at.character + 1} TS${diagnostic.code}: ${text}`;
      }),
    );
  }
  return result;
}

// Two blocks of our own go into the same program, to show a failure is found and placed.
const broken: Snippet = {
  file: "x.md",
  line: 10,
  code: 'import { tool } from "tollgate";\nnope();',
};
const fine: Snippet = { file: "x.md", line: 20, code: 'import { z } from "zod";\nz.string();' };
const diagnostics = checkSnippets([...snippets, broken, fine]);

describe("code in the docs", () => {
  it("finds the ```ts blocks of README.md and docs/", () => {
    expect(markdownFiles).toContain("docs/providers.md");
    // The README keeps one or two blocks; the guides in docs/ hold the rest.
    expect(snippets.length).toBeGreaterThan(8);
    expect(snippetsOf("x.md", "a\n```ts\nconst a = 1;\n```\n```text\n```ts\n```\n")).toEqual([
      { file: "x.md", line: 3, code: "const a = 1;" },
    ]);
  });

  it("reports a broken block with its file and line", () => {
    expect(diagnostics.get(broken)).toEqual(["x.md:11:1 TS2304: Cannot find name 'nope'."]);
    expect(diagnostics.get(fine)).toEqual([]);
  });

  it("every ```ts block compiles on its own, as a user would paste it", () => {
    const failures = snippets.flatMap((snippet) => diagnostics.get(snippet) ?? []);
    expect(failures, `\n${failures.join("\n")}\n`).toEqual([]);
  });
});
