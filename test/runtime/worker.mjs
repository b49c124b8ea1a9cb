/**
 * The runtime smoke suite as a Cloudflare Worker (run in workerd by test/runtime/driver.ts):
 * each request runs the checks, with the adapter section when `?replay=<url>` is given, and
 * answers the report as JSON, with status 500 on any failure.
 */
import { runChecks } from "./checks.mjs";

export default {
  async fetch(request) {
    const replay = new URL(request.url).searchParams.get("replay") ?? undefined;
    const report = await runChecks(replay);
    return Response.json(report, { status: report.failures.length === 0 ? 200 : 500 });
  },
};
