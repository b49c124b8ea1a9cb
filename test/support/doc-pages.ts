import { readdirSync } from "node:fs";
import { join } from "node:path";

/** The repository's Markdown pages users read: README.md and the guides in docs/ (root-relative). */
export function docPages(root: string): string[] {
  const guides = readdirSync(join(root, "docs"))
    .filter((name) => name.endsWith(".md"))
    .sort()
    .map((name) => `docs/${name}`);
  return ["README.md", ...guides];
}
