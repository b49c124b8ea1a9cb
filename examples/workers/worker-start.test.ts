/**
 * A worker started where Redis is not reachable says so once, naming the URL and the variable
 * it came from, and exits with an error instead of retrying for ever. Needs no Redis: it
 * points the worker at a port on 127.0.0.1 that nothing listens on.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runWorkerToExit } from "../../test/support/worker-processes.js";

/** A port on 127.0.0.1 that nothing listens on (it was free a moment ago). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe("a worker that cannot reach Redis (examples/workers/worker.ts)", () => {
  const dir = mkdtempSync(join(tmpdir(), "tollgate-worker-start-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("says so once, with the URL, and exits non-zero", { timeout: 40_000 }, async () => {
    const url = `redis://127.0.0.1:${await closedPort()}`;
    const { code, output } = await runWorkerToExit({
      TOLLGATE_REDIS_URL: url,
      TOLLGATE_WORKERS_DIR: dir,
      TOLLGATE_CONNECT_MS: "2000",
    });
    expect(code, output).toBe(1);
    const refused = `cannot reach Redis at ${url} (TOLLGATE_REDIS_URL): connect ECONNREFUSED`;
    expect(output).toContain(refused);
    expect(output.split(refused)).toHaveLength(2); // said once
    expect(output.match(/ECONNREFUSED/g)?.length, output).toBeLessThanOrEqual(2);
    expect(output).not.toContain("Unhandled error event");
    expect(output).not.toContain("ready");
  });
});
