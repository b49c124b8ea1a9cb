import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const src = (path: string) => fileURLToPath(new URL(`./src/${path}`, import.meta.url));
/** The AI SDK and OpenAI Agents SDK live in bench/'s own npm project (bench/peers.ts says why). */
const peer = (name: string) =>
  fileURLToPath(new URL(`./bench/node_modules/${name}`, import.meta.url));
/**
 * test/tools/foreign-tools.test.ts and test/ai-sdk/*.test.ts import them from there, when
 * `npm run bench:install` has run.
 */
const peers = ["ai", "@openai/agents-core", "@ai-sdk/openai", "@ai-sdk/anthropic"]
  .filter((name) => existsSync(peer(name)))
  .map((name) => ({ find: new RegExp(`^${name.replace("/", "\\/")}$`), replacement: peer(name) }));
/** `ai/test` (the AI SDK's `MockLanguageModelV4`), a subpath of `ai`. */
if (existsSync(peer("ai/dist/test/index.js"))) {
  peers.push({ find: /^ai\/test$/, replacement: peer("ai/dist/test/index.js") });
}

export default defineConfig({
  resolve: {
    alias: [
      { find: /^tollgate$/, replacement: src("index.ts") },
      { find: /^tollgate\/(.+)$/, replacement: src("$1/index.ts") },
      ...peers,
    ],
  },
  test: {
    // examples/*.test.ts are the README's complete test files: they run with the suite.
    include: ["test/**/*.test.ts", "examples/**/*.test.ts"],
    testTimeout: 20_000,
  },
});
