import { defineConfig, type Options } from "tsup";

/** What every entry of the package is built with. */
const common: Options = {
  format: ["esm", "cjs"],
  dts: true,
  // Two builds write into dist/ side by side, so neither may empty it: `npm run build` does.
  clean: false,
  sourcemap: true,
  target: "es2022",
  platform: "neutral",
  // Keep `node:fs/promises` as written: Deno, Bun and edge runtimes resolve node built-ins only
  // with the prefix (tsup 8 strips it by default).
  removeNodeProtocol: false,
  // Subpath entries import the core as "tollgate", so every entry shares one copy of its classes.
  // Node built-ins (only `tollgate/file-store` has any) stay imports, with their `node:` prefix.
  external: [
    "tollgate",
    "zod",
    "zod-to-json-schema",
    "@cfworker/json-schema",
    // The optional peers of tollgate/mcp and tollgate/otel: the user's own copies.
    /^@modelcontextprotocol\/sdk(\/.*)?$/,
    "@opentelemetry/api",
    // The optional peers of tollgate/dbos and tollgate/restate.
    /^@dbos-inc\/dbos-sdk(\/.*)?$/,
    /^@restatedev\/restate-sdk(\/.*)?$/,
    // The optional peer of tollgate/cedar.
    /^@cedar-policy\/cedar-wasm(\/.*)?$/,
    // The optional peers of tollgate/redis and tollgate/postgres.
    "ioredis",
    "pg",
    // The optional peers of tollgate/vitest and tollgate/testing/arbitraries.
    "vitest",
    "fast-check",
    /^node:/,
  ],
};

/**
 * The core ("tollgate") is a build of its own. In one build with the subpaths, every set of
 * entries sharing a util module became a chunk of its own, and `import "tollgate"` loaded 25
 * files at start; Node's ESM loader pays for each file it resolves, reads and links. Alone, the
 * core's entry loads 4 (10 before the modules loaded on first need reached the whole core
 * through src/core.ts: see there). The subpaths import the core as "tollgate" (above) and hold
 * their own copies of the stateless util/ and http/ modules they use, as their CommonJS files
 * always did.
 */
export default defineConfig([
  {
    ...common,
    entry: {
      index: "src/index.ts",
      // Not a package entry: its own entry so that jsonSchema() and the JSON Schema validator it
      // imports sit in a chunk of their own. A user's bundler follows every import of a file it
      // keeps; in the core's chunk, the validator (also what a resumed run loads) would load at
      // start in every app.
      "internal/json-schema": "src/tools/json-schema.ts",
    },
  },
  {
    ...common,
    entry: {
      "testing/index": "src/testing/index.ts",
      "testing/arbitraries/index": "src/testing/arbitraries/index.ts",
      "vitest/index": "src/vitest/index.ts",
      "file-store/index": "src/file-store/index.ts",
      "openai/index": "src/openai/index.ts",
      "anthropic/index": "src/anthropic/index.ts",
      "gemini/index": "src/gemini/index.ts",
      "mcp/index": "src/mcp/index.ts",
      "ai-sdk/index": "src/ai-sdk/index.ts",
      "otel/index": "src/otel/index.ts",
      "event-stream/index": "src/event-stream/index.ts",
      "ui/index": "src/ui/index.ts",
      "rules/index": "src/rules/index.ts",
      "dbos/index": "src/dbos/index.ts",
      "cedar/index": "src/cedar/index.ts",
      "restate/index": "src/restate/index.ts",
      "redis/index": "src/redis/index.ts",
      "postgres/index": "src/postgres/index.ts",
    },
  },
]);
