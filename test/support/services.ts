import { existsSync } from "node:fs";

/** The servers some suites need, each found by an environment variable or a path. */
const SERVICES = {
  redis: { env: "TOLLGATE_REDIS_URL", what: "a Redis server" },
  postgres: { env: "TOLLGATE_POSTGRES_URL", what: "a PostgreSQL server" },
} as const;

/** Debian's Chromium, which the approval inbox's browser test drives. */
export const CHROMIUM_PATH = "/usr/bin/chromium";

/**
 * The flags Debian's Chromium runs headless with here: no sandbox (root), and none of its
 * background connections, which this machine's closed network refuses.
 */
export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** What to run to get the servers, said in every skip. */
const HOW = "run `npm run test:services` (it starts them on 127.0.0.1, as .ci/run does)";

/**
 * The URL of a server a suite needs, from `TOLLGATE_REDIS_URL` / `TOLLGATE_POSTGRES_URL`
 * (`scripts/with-services.mjs` sets them), or `undefined` after printing why the suite skips.
 * Under TOLLGATE_REQUIRE_SERVICES=1 (CI, and `npm run test:services`) a missing server fails
 * the file instead.
 */
export function serviceUrl(name: keyof typeof SERVICES, file: string): string | undefined {
  const { env, what } = SERVICES[name];
  const url = process.env[env];
  if (url) return url;
  return skipOrFail(file, `${env} is not set (${what})`);
}

/** Debian's Chromium, or `undefined` after printing why the suite skips (fails under TOLLGATE_REQUIRE_SERVICES=1). */
export function chromiumPath(file: string): string | undefined {
  if (existsSync(CHROMIUM_PATH)) return CHROMIUM_PATH;
  return skipOrFail(file, `${CHROMIUM_PATH} is absent (apt-get install chromium)`);
}

function skipOrFail(file: string, missing: string): undefined {
  if (process.env.TOLLGATE_REQUIRE_SERVICES === "1") {
    throw new Error(`TOLLGATE_REQUIRE_SERVICES=1 and ${missing}`);
  }
  console.warn(`${file} (SKIPPED: ${missing}; ${HOW})`);
  return undefined;
}
