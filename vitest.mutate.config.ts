import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const src = (path: string) => fileURLToPath(new URL(`./src/${path}`, import.meta.url));
/** The AI SDK and OpenAI Agents SDK live in bench/'s own npm project (bench/peers.ts says why). */
const peer = (name: string) =>
  fileURLToPath(new URL(`./bench/node_modules/${name}`, import.meta.url));
/**
 * test/tools/foreign-tools.test.ts imports them from there, when `npm run bench:install` has
 * run.
 */
const peers = ["ai", "@openai/agents-core"]
  .filter((name) => existsSync(peer(name)))
  .map((name) => ({ find: new RegExp(`^${name.replace("/", "\\/")}$`), replacement: peer(name) }));

/**
 * The tests `npm run mutate` runs against each mutant of the gate, resume, state and args
 * modules: the core suites, without the provider adapters, the file store's multi-process
 * tests and the examples (they cover none of the mutated code and take most of the time), and
 * with property run counts scaled down (TOLLGATE_MUTATION).
 */
export default defineConfig({
  resolve: {
    alias: [
      { find: /^tollgate$/, replacement: src("index.ts") },
      { find: /^tollgate\/(.+)$/, replacement: src("$1/index.ts") },
      ...peers,
    ],
  },
  test: {
    env: { TOLLGATE_MUTATION: "1" },
    include: ["test/**/*.test.ts"],
    exclude: ["test/providers/**", "test/repo/examples.test.ts", "test/file-store/**"],
    testTimeout: 20_000,
  },
});
