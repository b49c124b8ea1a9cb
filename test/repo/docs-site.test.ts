/**
 * The docs site as a reader meets it: the built site (docs/.vitepress/dist, which .ci/run builds;
 * built here when it is missing or older than its sources) served on 127.0.0.1 and opened in
 * headless Chromium (Debian's, driven by playwright-core). Every page of the sidebar loads
 * without a console error, every internal link of every page resolves (to a page, an anchor on
 * it, a /repo/ page or the API reference), local search finds what a reader looks up, and the
 * sidebar reaches every guide in docs/.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { extname, join, normalize, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHROMIUM_ARGS, chromiumPath } from "../support/services.js";

const FILE = "test/repo/docs-site.test.ts";
const root = fileURLToPath(new URL("../..", import.meta.url));
const docs = join(root, "docs");
const dist = join(docs, ".vitepress", "dist");

/** The guides: docs/*.md but the home page, by name without .md. */
const guides = readdirSync(docs)
  .filter((file) => file.endsWith(".md") && file !== "index.md")
  .map((file) => file.slice(0, -3))
  .sort();

/** Build output, not a source of the site. */
const OUTPUT = new Set([dist, join(docs, ".vitepress", "cache"), join(docs, "public", "api")]);

/** The newest modification time of the files under `dir` (recursive), build output left out. */
function newest(dir: string): number {
  let time = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!OUTPUT.has(path) && entry.name !== "node_modules") time = Math.max(time, newest(path));
    } else time = Math.max(time, statSync(path).mtimeMs);
  }
  return time;
}

/**
 * Builds the site (`npm run docs:build`) unless a build newer than its sources is there. Returns
 * why the suite skips ("" when it does not): vitepress is not installed. A build that fails (a
 * dead link fails it) throws, with its output.
 */
function buildSite(): string {
  if (!existsSync(join(root, "node_modules", "vitepress"))) {
    return "vitepress is not installed (npm ci)";
  }
  const built = join(dist, "index.html");
  const sources = Math.max(newest(docs), newest(join(root, "examples")), newest(join(root, "src")));
  if (existsSync(built) && statSync(built).mtimeMs > sources) return "";
  try {
    execFileSync("npm", ["run", "docs:build"], { cwd: root, stdio: "pipe", timeout: 280_000 });
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: Buffer; stderr?: Buffer };
    throw new Error(`npm run docs:build failed:\n${stdout ?? ""}\n${stderr ?? ""}`.slice(-6000));
  }
  return "";
}

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".woff2": "font/woff2",
};

/** A static server for dist/: `/x/` serves x/index.html; anything else is the file or a 404. */
function serve(): Promise<{ server: Server; origin: string }> {
  const server = createServer((request, response) => {
    const pathname = decodeURIComponent(new URL(request.url ?? "/", "http://x").pathname);
    const path = normalize(join(dist, pathname.endsWith("/") ? `${pathname}index.html` : pathname));
    const file = path.startsWith(dist + sep) && existsSync(path) && statSync(path).isFile();
    if (!file) {
      response.writeHead(404, { "content-type": "text/plain" }).end(`no ${pathname}`);
      return;
    }
    const type = TYPES[extname(path)] ?? "application/octet-stream";
    response.writeHead(200, { "content-type": type }).end(readFileSync(path));
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve({ server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }),
    ),
  );
}

const executablePath = chromiumPath(FILE);
const buildTimeout = 300_000;

/**
 * Generous timeouts: the suite runs beside every other test file, and on a loaded two-core
 * machine a page can take tens of seconds to hydrate. A slow page is not a broken one; a
 * console error, a dead link or a missing anchor is.
 */
const pageTimeout = 120_000;

describe.skipIf(!executablePath)("the docs site in headless Chromium", { timeout: 600_000 }, () => {
  let skipped = "";
  let server: Server | undefined;
  let origin = "";
  let browser: Browser | undefined;
  let context: BrowserContext;

  beforeAll(async () => {
    skipped = buildSite();
    if (skipped) {
      console.warn(`${FILE} (SKIPPED: ${skipped})`);
      return;
    }
    ({ server, origin } = await serve());
    browser = await chromium.launch({ executablePath: executablePath!, args: CHROMIUM_ARGS });
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    context.setDefaultTimeout(pageTimeout);
    context.setDefaultNavigationTimeout(pageTimeout);
  }, buildTimeout);

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  });

  /** A page opened at `path` and settled, with the console errors and failed requests it had. */
  async function open(path: string): Promise<{ page: Page; problems: string[] }> {
    const page = await context.newPage();
    const problems: string[] = [];
    page.on("console", (message) => {
      if (message.type() === "error") problems.push(`console: ${message.text()}`);
    });
    page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
    page.on("response", (response) => {
      if (response.status() >= 400) problems.push(`HTTP ${response.status()} ${response.url()}`);
    });
    await goto(page, path);
    return { page, problems };
  }

  /** Opens `path` in `page` and waits until Vue has mounted (hydrated) the page. */
  async function goto(page: Page, path: string): Promise<void> {
    await page.goto(origin + path, { waitUntil: "load" });
    await page.waitForFunction(() => "__vue_app__" in (document.querySelector("#app") ?? {}));
  }

  /** The sidebar's links, as site paths, read from a guide's page. */
  async function sidebarLinks(): Promise<{ path: string; text: string }[]> {
    const { page } = await open("/getting-started.html");
    const links = await page.locator(".VPSidebar a.link").evaluateAll((anchors) =>
      anchors.map((a) => ({
        path: new URL((a as HTMLAnchorElement).href).pathname,
        text: a.textContent?.trim() ?? "",
      })),
    );
    await page.close();
    return links;
  }

  it("has a sidebar that reaches every guide in docs/, each under its # title", async (context) => {
    if (skipped) return context.skip(skipped);
    const links = await sidebarLinks();
    expect(links.map((link) => link.path).sort()).toEqual(guides.map((name) => `/${name}.html`));
    for (const name of guides) {
      const title = /^# (.+)$/m.exec(readFileSync(join(docs, `${name}.md`), "utf8"))?.[1];
      const text = links.find((link) => link.path === `/${name}.html`)?.text;
      expect(text, `docs/${name}.md`).toBe(title?.replace(/`([^`]*)`/g, "$1"));
    }
  });

  it("loads the home page and every page of the sidebar without a console error", async (context) => {
    if (skipped) return context.skip(skipped);
    const paths = ["/", ...(await sidebarLinks()).map((link) => link.path)];
    const problems: string[] = [];
    const check = async (path: string) => {
      const opened = await open(path);
      const heading = path === "/" ? ".VPHero .text" : ".vp-doc h1";
      if (!(await opened.page.locator(heading).first().isVisible())) {
        problems.push(`${path}: no ${heading} shown`);
      }
      problems.push(...opened.problems.map((problem) => `${path}: ${problem}`));
      await opened.page.close();
    };
    // Three tabs at a time: each page is opened fresh (not through the router).
    const queue = [...paths];
    await Promise.all(
      [1, 2, 3].map(async () => {
        for (let path = queue.shift(); path !== undefined; path = queue.shift()) await check(path);
      }),
    );
    expect(problems.sort()).toEqual([]);
  }, 120_000);

  it("resolves every internal link of every page: each target is served, each #anchor is on it", async (context) => {
    if (skipped) return context.skip(skipped);
    const html = new Map<string, string | undefined>(); // path → body, or undefined (not 200)
    const fetchPage = async (path: string) => {
      if (!html.has(path)) {
        const response = await fetch(origin + path);
        html.set(path, response.ok ? await response.text() : undefined);
      }
      return html.get(path);
    };
    /** The site's pages (not the API reference's), from the home page and the sidebar on. */
    const queue = ["/", ...(await sidebarLinks()).map((link) => link.path)];
    const seen = new Set(queue);
    const broken: string[] = [];
    for (let path = queue.shift(); path !== undefined; path = queue.shift()) {
      const body = await fetchPage(path);
      if (body === undefined) continue; // reported where it is linked from
      const content = body.slice(body.indexOf('<div id="app">'));
      for (const [, href] of content.matchAll(/<a\s[^>]*?href="([^"]*)"/g)) {
        const url = new URL(href!.replaceAll("&amp;", "&"), origin + path);
        if (url.origin !== origin) continue;
        const target = url.pathname;
        const targetBody = await fetchPage(target);
        if (targetBody === undefined) {
          broken.push(`${path}: ${href} (not served)`);
          continue;
        }
        const anchor = decodeURIComponent(url.hash.slice(1));
        if (
          anchor &&
          !targetBody.includes(`id="${anchor}"`) &&
          !targetBody.includes(`name="${anchor}"`)
        ) {
          broken.push(`${path}: ${href} (no #${anchor} on ${target})`);
        }
        if (!target.startsWith("/api/") && target.endsWith(".html") && !seen.has(target)) {
          seen.add(target);
          queue.push(target);
        }
        if (target.endsWith("/") && !seen.has(target)) {
          seen.add(target);
          queue.push(target);
        }
      }
    }
    expect(broken).toEqual([]);
    expect(seen.size).toBeGreaterThan(guides.length);
  }, 120_000);

  it("opens the API reference and an example's page by clicking, as a reader does", async (context) => {
    if (skipped) return context.skip(skipped);
    const { page, problems } = await open("/getting-started.html");
    // The nav's link and a guide's link into the reference load TypeDoc's page, not a 404.
    await page.locator(".VPNavBar a", { hasText: "API reference" }).first().click();
    await page.waitForURL((url) => url.pathname === "/api/index.html", { waitUntil: "load" });
    expect(await page.locator(".tsd-page-title").count()).toBe(1);
    await goto(page, "/getting-started.html");
    const apiLink = page.locator('.vp-doc a[href*="api/"]').first();
    if ((await apiLink.count()) > 0) {
      const href = new URL((await apiLink.getAttribute("href"))!, page.url()).pathname;
      await apiLink.click();
      await page.waitForURL((url) => url.pathname === href, { waitUntil: "load" });
      expect(await page.locator(".tsd-page-title").count()).toBe(1);
      await goto(page, "/getting-started.html");
    }
    // A link to ../examples/x.ts opens that file's page on the site, its code highlighted.
    const exampleLink = page.locator('.vp-doc a[href^="/repo/examples/"]').first();
    expect(await exampleLink.count()).toBe(1);
    const name = (await exampleLink.textContent())?.trim();
    await exampleLink.click();
    await expect.poll(() => page.locator(".vp-doc h1").textContent()).toContain(name);
    expect(await page.locator(".vp-doc div[class*='language-'] pre").count()).toBe(1);
    expect(problems).toEqual([]);
    await page.close();
  });

  it.for(["needsApproval", "signingKey", "resumeStream"])(
    "finds %s with the local search",
    { timeout: 2 * pageTimeout },
    async (term, context) => {
      if (skipped) return context.skip(skipped);
      const { page, problems } = await open("/getting-started.html");
      await page.locator("#local-search button").click();
      const box = page.locator(".VPLocalSearchBox input");
      await box.fill(term);
      const results = page.locator(".VPLocalSearchBox .results li");
      await expect.poll(() => results.count(), { timeout: pageTimeout }).toBeGreaterThan(0);
      // The first result opens a guide that names the term.
      const result = results.first().locator("a");
      const href = new URL((await result.getAttribute("href"))!, page.url());
      await result.click();
      await page.waitForURL((url) => url.pathname === href.pathname);
      await expect.poll(() => page.locator(".vp-doc").textContent()).toContain(term);
      expect(problems).toEqual([]);
      await page.close();
    },
  );
});
