import { defineConfig, mergeConfig } from "vitest/config";
import base from "./vitest.config.js";

/**
 * The tests `npm run mutate` runs against each mutant of the gate, resume, state and args
 * modules: the core suites, without the provider adapters, the file store's multi-process
 * tests and the examples (they cover none of the mutated code and take most of the time).
 */
export default mergeConfig(
  base,
  defineConfig({
    test: {
      env: { TOLLGATE_MUTATION: "1" },
      include: ["test/*.test.ts"],
      exclude: ["test/examples.test.ts", "test/file-store.test.ts"],
    },
  }),
);
