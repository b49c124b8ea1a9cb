/**
 * Links from a guide to a file outside docs/ (`../examples/x.ts`, `../BENCHMARKS.md`) work on
 * GitHub and in an editor; on the site each such file or folder gets a page of its own under
 * /repo/ (docs/repo/[path].md), and the guide's link is pointed at it. A link to a file that does
 * not exist fails the build, as a dead link between pages does.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, posix } from "node:path";
import { fileURLToPath } from "node:url";

/** docs/, the site's source folder. */
export const docsDir = fileURLToPath(new URL("..", import.meta.url));
/** The repository, one level up. */
export const repoDir = join(docsDir, "..");

/** Folders a folder page does not list. */
const SKIPPED = new Set(["node_modules", "__screenshots__", "dist"]);
/** The code-block language of a file's extension (none: a plain block). */
const LANGUAGES: Record<string, string> = {
  ts: "ts",
  tsx: "tsx",
  mts: "ts",
  cts: "ts",
  js: "js",
  mjs: "js",
  cjs: "js",
  json: "json",
  html: "html",
  css: "css",
  md: "md",
  sh: "sh",
  yml: "yaml",
  yaml: "yaml",
};
/** Files shown as text; anything else is listed on its folder's page without a link. */
const TEXT = new Set([...Object.keys(LANGUAGES), "txt"]);
const isText = (path: string) => TEXT.has(path.split(".").pop() ?? "");

/**
 * The page param of a file: its path, but a Markdown file's without `.md` (VitePress would read
 * `x.md.md` as a link to the page `x`).
 */
const pageOf = (path: string) => path.replace(/\.md$/, "");

/**
 * The repository path a link of page `page` (relative to docs/) points to when it leaves docs/,
 * e.g. `examples/quickstart.ts` for `../examples/quickstart.ts#L3` from `tools.md`; else undefined.
 */
export function repoPathOf(page: string, href: string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:|^\/\/|^#|^\//i.test(href)) return undefined;
  const target = posix.normalize(posix.join(posix.dirname(page), href.replace(/[?#].*$/, "")));
  if (!target.startsWith("../") || target.startsWith("../../")) return undefined;
  return target.slice(3) + (href.replace(/[?#].*$/, "").endsWith("/") ? "/" : "");
}

/** Whether a repository path is a folder. */
const isFolder = (path: string) => statSync(join(repoDir, path)).isDirectory();

/**
 * The site link for a repository path: `/repo/examples/x.ts.md` (VitePress makes it .html) or
 * `/repo/examples/workers/` for a folder. Throws for a path that is not in the repository.
 */
export function siteLinkOf(path: string, from: string): string {
  const clean = path.replace(/\/$/, "");
  if (!clean || !existsSync(join(repoDir, clean))) {
    throw new Error(`docs/${from}: dead link to ../${path} (no such file in the repository)`);
  }
  if (isFolder(clean)) return `/repo/${clean}/`;
  if (!isText(clean)) throw new Error(`docs/${from}: ../${path} is not a text file the site shows`);
  return `/repo/${pageOf(clean)}.md`;
}

/** Every `](../…)` or `[x]: ../…` link target of the guides (docs/*.md), as repository paths. */
function linkedPaths(): string[] {
  const paths = new Set<string>();
  for (const name of readdirSync(docsDir).filter((file) => file.endsWith(".md"))) {
    const text = readFileSync(join(docsDir, name), "utf8");
    for (const match of text.matchAll(/\]\((\.\.\/[^)\s]+)\)|^\[[^\]]+\]:\s*(\.\.\/\S+)/gm)) {
      const path = repoPathOf(name, (match[1] ?? match[2])!);
      if (path && existsSync(join(repoDir, path))) paths.add(path.replace(/\/$/, ""));
    }
  }
  return [...paths].sort();
}

/** One page of docs/repo/[path].md: its path param (without .md) and its Markdown. */
export interface RepoPage {
  params: { path: string };
  content: string;
}

/** The longest run of backticks in a text, plus one (at least three): a fence nothing closes early. */
function fenceFor(text: string): string {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((match) => match[0].length));
  return "`".repeat(Math.max(3, longest + 1));
}

function filePage(path: string): RepoPage {
  const text = readFileSync(join(repoDir, path), "utf8").replace(/\n$/, "");
  const fence = fenceFor(text);
  const language = LANGUAGES[path.split(".").pop() ?? ""] ?? "";
  const folder = dirname(path);
  const up = folder === "." ? "" : ` In [${folder}/](/repo/${folder}/).`;
  return {
    params: { path: pageOf(path) },
    content: `# ${path}\n\nThis file in the repository, as the guides quote it.${up}\n\n${fence}${language}\n${text}\n${fence}\n`,
  };
}

function folderPage(path: string, pages: Map<string, RepoPage>): RepoPage {
  const lines: string[] = [];
  for (const entry of readdirSync(join(repoDir, path), { withFileTypes: true }).sort((a, b) =>
    a.name.localeCompare(b.name),
  )) {
    const child = `${path}/${entry.name}`;
    if (entry.isDirectory()) {
      if (SKIPPED.has(entry.name)) continue;
      if (!pages.has(`${child}/index`)) pages.set(`${child}/index`, folderPage(child, pages));
      lines.push(`- [${entry.name}/](/repo/${child}/)`);
    } else if (isText(entry.name)) {
      if (!pages.has(pageOf(child))) pages.set(pageOf(child), filePage(child));
      lines.push(`- [${entry.name}](/repo/${pageOf(child)}.md)`);
    } else lines.push(`- ${entry.name}`);
  }
  return { params: { path: `${path}/index` }, content: `# ${path}/\n\n${lines.join("\n")}\n` };
}

/**
 * The pages of every repository file and folder the guides link to, and of the folders they are
 * in (so each page links up to its folder's), each folder's page listing its files and folders.
 */
export function repoPages(): RepoPage[] {
  const pages = new Map<string, RepoPage>();
  const addFolder = (path: string) => {
    if (!pages.has(`${path}/index`)) pages.set(`${path}/index`, folderPage(path, pages));
  };
  for (const path of linkedPaths()) {
    if (isFolder(path)) addFolder(path);
    else if (isText(path) && !pages.has(pageOf(path))) pages.set(pageOf(path), filePage(path));
    for (let folder = dirname(path); folder !== "."; folder = dirname(folder)) addFolder(folder);
  }
  return [...pages.values()];
}
