/**
 * Runs examples/restate/main.ts as a user would, on a restate-server this file starts (the
 * binary from bench/'s npm project, test/support/restate-server.ts); the example serves its own
 * endpoint and registers it.
 */
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  freePort,
  type RestateServer,
  restateServerBinary,
  startRestateServer,
} from "../../test/support/restate-server.js";

const binary = restateServerBinary("examples/restate/restate.test.ts");
const root = fileURLToPath(new URL("../..", import.meta.url));

let server: RestateServer | undefined;

beforeAll(async () => {
  if (binary) server = await startRestateServer(binary);
}, 60_000);

afterAll(async () => {
  await server?.stop();
}, 30_000);

describe.skipIf(!binary)("examples/restate", () => {
  it("pauses on an awakeable, runs the approved refund once, and finishes; again on the same server", async () => {
    const env = {
      ...process.env,
      TOLLGATE_RESTATE_INGRESS: server!.ingress,
      TOLLGATE_RESTATE_ADMIN: server!.admin,
      TOLLGATE_RESTATE_PORT: String(await freePort()),
    };
    // The second run registers the same endpoint again and runs a run of its own.
    for (const _ of [1, 2]) {
      const run = spawnSync(process.execPath, ["--import", "tsx", "examples/restate/main.ts"], {
        cwd: root,
        env,
        encoding: "utf8",
        timeout: 60_000,
      });
      expect(run.status, `${run.stderr}\n${server!.log()}`).toBe(0);
      expect(run.stdout).toBe(
        'waiting: refund {"order":7,"amountEur":40}\ndecided: taken\nagain: taken\nresult: completed Done: refunded 40 EUR for order 7\nrefunds made: 1\n',
      );
      expect(run.stderr).toBe("");
    }
  }, 130_000);
});
