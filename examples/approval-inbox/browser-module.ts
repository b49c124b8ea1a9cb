/**
 * `readEventStream` (from `tollgate/event-stream`) as JavaScript a browser imports, without a
 * build step of the page's own. Two honest sources, tried in order:
 *
 * - In tollgate's own repository (where `tollgate/event-stream` is TypeScript under src/): the
 *   source, bundled on first request with esbuild (a devDependency of the repo), so the page
 *   always runs the code the tests test, never a stale build.
 * - Installed from npm: the package's built ES module (`dist/event-stream/index.js`, resolved
 *   through the package's exports), served with the shared chunks it imports from `dist/`.
 *
 * The page imports `/vendor/event-stream.js` either way.
 */
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

/** Answers the inbox's `/vendor/...` requests: a module's source, or undefined (a 404). */
export type VendorFiles = (path: string) => Promise<string | undefined>;

/** The repository's source of `tollgate/event-stream`, when this example runs inside the repo. */
const REPO_SOURCE = fileURLToPath(new URL("../../src/event-stream/index.ts", import.meta.url));

/** Where the page's `/vendor/` files come from; `from` says which source was found. */
export function eventStreamModule(): { from: string; files: VendorFiles } {
  if (existsSync(REPO_SOURCE)) return { from: "src/event-stream (esbuild)", files: bundled() };
  return { from: "dist/event-stream (built package)", files: built() };
}

function bundled(): VendorFiles {
  let code: Promise<string> | undefined;
  return (path) => {
    if (path !== "event-stream.js") return Promise.resolve(undefined);
    code ??= import("esbuild").then(async ({ build }) => {
      const result = await build({
        entryPoints: [REPO_SOURCE],
        bundle: true,
        format: "esm",
        platform: "browser",
        target: "es2022",
        write: false,
        logLevel: "silent",
      });
      return result.outputFiles[0]!.text;
    });
    return code;
  };
}

function built(): VendorFiles {
  const entry = fileURLToPath(import.meta.resolve("tollgate/event-stream"));
  const dist = dirname(dirname(entry)); // dist/event-stream/index.js → dist/
  const shim = `export * from "./dist/${relative(dist, entry).split(sep).join("/")}";\n`;
  return async (path) => {
    if (path === "event-stream.js") return shim;
    if (!path.startsWith("dist/") || !path.endsWith(".js")) return undefined;
    const file = resolve(dist, path.slice("dist/".length));
    if (!file.startsWith(dist + sep)) return undefined; // never outside dist/
    return readFile(join(file)).then(String, () => undefined);
  };
}
