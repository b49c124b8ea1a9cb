/** Runs examples/dbos/main.ts as a user would, on the PostgreSQL scripts/with-services.mjs starts. */
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { serviceUrl } from "../../test/support/services.js";

const url = serviceUrl("postgres", "examples/dbos/dbos.test.ts");
const root = fileURLToPath(new URL("../..", import.meta.url));

describe.skipIf(!url)("examples/dbos", () => {
  it("pauses inside the workflow, runs the approved refund once, and finishes", () => {
    const run = spawnSync(process.execPath, ["--import", "tsx", "examples/dbos/main.ts"], {
      cwd: root,
      env: { ...process.env, TOLLGATE_POSTGRES_URL: url },
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toBe(
      'waiting: refund {"order":7,"amountEur":40}\ndecided: taken\nagain: taken\nresult: completed Done: refunded 40 EUR for order 7\n' +
        "inbox decided: taken\ninbox result: completed Done: refunded 40 EUR for order 7\n",
    );
  }, 70_000);
});
