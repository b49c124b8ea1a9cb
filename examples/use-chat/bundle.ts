/**
 * The page's script: page/app.tsx and what it imports (React 19, `@ai-sdk/react`, `ai`),
 * bundled in memory by esbuild's JS API when the server starts. No build step, no build server,
 * no generated file on disk. The AI SDK and React live in bench/'s own npm project
 * (bench/peers.ts says why), so esbuild also looks in bench/node_modules.
 */
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const APP = fileURLToPath(new URL("./page/app.tsx", import.meta.url));
/** Where React and the AI SDK are installed (`npm run bench:install`). */
export const BENCH_MODULES = fileURLToPath(new URL("../../bench/node_modules", import.meta.url));

/** page/app.tsx as one ES module for the browser. */
export async function bundleApp(): Promise<string> {
  const { outputFiles } = await build({
    entryPoints: [APP],
    bundle: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    jsx: "automatic",
    define: { "process.env.NODE_ENV": '"production"' },
    nodePaths: [BENCH_MODULES],
    write: false,
    logLevel: "silent",
  });
  return outputFiles[0]!.text;
}
