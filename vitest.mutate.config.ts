import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const src = (path: string) => fileURLToPath(new URL(`./src/${path}`, import.meta.url));

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
    ],
  },
  test: {
    env: { TOLLGATE_MUTATION: "1" },
    include: ["test/*.test.ts"],
    exclude: ["test/examples.test.ts", "test/file-store.test.ts"],
    testTimeout: 20_000,
  },
});
