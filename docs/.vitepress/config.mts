/**
 * The docs site: the guides in docs/*.md, in the order people learn them, with local search and
 * the API reference (TypeDoc's HTML, which `npm run docs:api` writes to docs/public/api/) served
 * as static files at /api/. `npm run docs:dev` / `npm run docs:build` / `npm run docs:preview`.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, posix } from "node:path";
import { type DefaultTheme, defineConfig } from "vitepress";
import { docsDir, repoPathOf, siteLinkOf } from "./repo-files.mts";

/**
 * The sidebar's groups and pages (file names without .md), in the order people learn. A page
 * listed here that does not exist is left out; a guide in docs/ that is not listed comes last.
 */
const ORDER: { text: string; pages: string[] }[] = [
  { text: "Start here", pages: ["getting-started"] },
  { text: "The loop", pages: ["tools", "the-gate", "policy", "errors"] },
  { text: "Human in the loop", pages: ["human-in-the-loop", "client-side-tools", "chat-ui"] },
  { text: "Production", pages: ["production", "stores", "security", "scale", "dbos", "restate"] },
  {
    text: "Models and streams",
    pages: ["streaming", "providers", "writing-a-provider", "ai-sdk", "multimodal-input"],
  },
  {
    text: "Controlling a run",
    pages: ["run-control", "structured-output", "limits-and-steering", "sub-agents", "mcp"],
  },
  { text: "Going further", pages: ["testing", "cassettes", "coming-from", "recipes"] },
];

/** Not pages: the API reference's output, the old place it was written to, and notes. */
const NOT_PAGES = ["api/**", "public/**", "**/README.md"];

const escapeHtml = (text: string) =>
  text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");

/** A guide's `# Title` (its first one, after any front matter), as sidebar text. */
function titleOf(name: string): string {
  const text = readFileSync(join(docsDir, `${name}.md`), "utf8").replace(
    /^---\n[\s\S]*?\n---\n/,
    "",
  );
  const title = /^# (.+)$/m.exec(text)?.[1]?.trim() ?? name;
  return escapeHtml(title.replace(/`([^`]*)`/g, "$1"));
}

/** The sidebar from the guides that exist now: ORDER's groups, then the guides it does not list. */
function sidebar(): DefaultTheme.SidebarItem[] {
  const guides = readdirSync(docsDir)
    .filter((file) => file.endsWith(".md") && file !== "index.md")
    .map((file) => file.slice(0, -3));
  const listed = new Set(ORDER.flatMap((group) => group.pages));
  const groups = [
    ...ORDER,
    { text: "More", pages: guides.filter((name) => !listed.has(name)).sort() },
  ];
  const item = (name: string) => ({ text: titleOf(name), link: `/${name}.md` });
  return groups
    .map((group) => ({
      text: group.text,
      items: group.pages.filter((name) => guides.includes(name)).map(item),
    }))
    .filter((group) => group.items.length > 0);
}

/** Whether a link of page `page` goes to the API reference, which is not a VitePress page. */
const isApiLink = (page: string, href: string) =>
  !/^[a-z][a-z0-9+.-]*:|^\/\/|^#/i.test(href) &&
  /^api(\/|$)/.test(
    posix.normalize(href.startsWith("/") ? href.slice(1) : posix.join(posix.dirname(page), href)),
  );

export default defineConfig({
  title: "tollgate",
  description: "An embeddable TypeScript agent loop in which every tool call passes a gate.",
  cleanUrls: false,
  lastUpdated: false,
  srcExclude: NOT_PAGES,
  // Every dead link fails the build; links out of docs/ are pointed at /repo/ pages (below).
  ignoreDeadLinks: false,
  themeConfig: {
    nav: [
      { text: "Guide", link: "/getting-started.md", activeMatch: "^/(?!$|index\\.html|api/)" },
      { text: "API reference", link: "/api/index.html", target: "_self" },
    ],
    sidebar: sidebar(),
    search: { provider: "local" },
    outline: { level: [2, 3] },
    docFooter: { prev: "Previous", next: "Next" },
  },
  markdown: {
    config(md) {
      // `../examples/x.ts` (right on GitHub and in an editor) → that file's page under /repo/.
      md.core.ruler.after("inline", "tollgate-repo-links", (state) => {
        const page: string = state.env.relativePath ?? "";
        for (const token of state.tokens.flatMap((block) => block.children ?? [])) {
          if (token.type !== "link_open") continue;
          const path = repoPathOf(page, token.attrGet("href") ?? "");
          if (path !== undefined) token.attrSet("href", siteLinkOf(path, page));
        }
      });
      // The API reference is static HTML: the router must not load it as a page (target="_self").
      // VitePress's own rule runs first, so its dead-link check still covers these links.
      const linkOpen = md.renderer.rules.link_open!;
      md.renderer.rules.link_open = (tokens, index, options, env, self) => {
        const html = linkOpen(tokens, index, options, env, self);
        const token = tokens[index]!;
        if (
          token.attrGet("target") ||
          !isApiLink(env.relativePath ?? "", token.attrGet("href") ?? "")
        ) {
          return html;
        }
        token.attrSet("target", "_self");
        return self.renderToken(tokens, index, options);
      };
    },
  },
});
