/**
 * A resume streamed over HTTP, refused before any header when it cannot run: the human's
 * decisions arrive twice (a double submit); the first resume streams its events, the second is
 * answered 409 while the first goes on, and so is a third once the run has finished (stale).
 *
 *   npx tsx examples/resume-stream.ts
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import {
  AgentLoop,
  type ApprovalDecisions,
  memoryRunStore,
  ResumeError,
  toEventStream,
  tool,
} from "tollgate";
import { readEventStream } from "tollgate/event-stream";
import { scriptedProvider } from "tollgate/testing";
import { z } from "zod";

let sent = () => {};
const mailSent = new Promise<void>((resolve) => {
  sent = resolve;
});
// The mail server answers once the second submit has been answered, so that one meets the run
// still going, however fast this machine is.
let answer = () => {};
const mailServerAnswers = new Promise<void>((resolve) => {
  answer = resolve;
});
const sendMail = tool({
  name: "send_mail",
  description: "Sends a mail",
  input: z.object({ to: z.string() }),
  needsApproval: true,
  execute: async ({ to }) => {
    sent();
    await mailServerAnswers; // the mail server is slow
    return `sent to ${to}`;
  },
});
const loop = new AgentLoop({
  provider: scriptedProvider([
    { toolCalls: [{ name: "send_mail", args: { to: "bob@example.com" }, id: "m1" }] },
    { text: "Mailed Bob." },
  ]),
  tools: [sendMail],
  store: memoryRunStore(),
});

// The handler: in Bun, Deno or an edge handler, return the Response as it is.
async function decide(loop: AgentLoop, runId: string, request: Request): Promise<Response> {
  const decisions = (await request.json()) as ApprovalDecisions; // resume() checks them
  const events = loop.resumeStream(runId, decisions, { signal: request.signal });
  try {
    await events.ready(); // a double submit, a stale state: a ResumeError, before any header
  } catch (error) {
    if (!(error instanceof ResumeError)) throw error;
    return Response.json({ error: error.message }, { status: 409 });
  }
  return toEventStream(events);
}

// Node's http server, adapted: POST /runs/<runId> with the decisions as JSON.
const server = createServer(async (req, res) => {
  const controller = new AbortController();
  res.on("close", () => controller.abort());
  let body = "";
  for await (const chunk of req) body += chunk;
  const runId = decodeURIComponent(req.url!.replace(/^\/runs\//, ""));
  const request = new Request(`http://${req.headers.host}${req.url}`, {
    method: "POST",
    body,
    signal: controller.signal,
  });
  const response = await decide(loop, runId, request);
  response.headers.forEach((value, name) => {
    res.setHeader(name, value);
  });
  res.writeHead(response.status);
  pipeline(Readable.fromWeb(response.body as never), res).catch(() => {});
});
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/runs/mail-1`;
const submit = () =>
  fetch(url, { method: "POST", body: JSON.stringify({ m1: { approve: true } }) });

const paused = await loop.run("Mail Bob", { runId: "mail-1" });
console.log(`paused: ${paused.status}`);
const first = await submit();
console.log(`first submit: ${first.status}`);
await mailSent;
const second = await submit();
console.log(
  `second submit: ${second.status} ${((await second.json()) as { error: string }).error.slice(0, 52)}…`,
);
answer();
for await (const event of readEventStream(first)) {
  if (event.type === "run-finish") console.log(`first submit's run: ${event.status}`);
}
const stale = await submit();
console.log(
  `after it finished: ${stale.status} ${((await stale.json()) as { error: string }).error}`,
);
server.close();
