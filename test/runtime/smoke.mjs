/**
 * The runtime smoke suite's command line: `node smoke.mjs [replayUrl]`, `bun smoke.mjs …`,
 * `deno run --allow-net=127.0.0.1 smoke.mjs …`. Run it where "tollgate" resolves to the built
 * package (test/runtime/driver.ts sets that up). Prints one summary line (and each failure)
 * and exits non-zero on any failure.
 */
import { runChecks, summary } from "./checks.mjs";

const host = globalThis;
const args = host.Deno ? host.Deno.args : host.process.argv.slice(2);
const report = await runChecks(args[0]);
for (const failure of report.failures) console.error(`  ✗ ${failure}`);
console.log(summary(report));
const code = report.failures.length === 0 ? 0 : 1;
if (host.Deno) host.Deno.exit(code);
else host.process.exit(code);
