/**
 * Events over HTTP: a server streams a run's events as server-sent events with
 * `toEventStream`, and a client (a browser, here Node's fetch) reads them with
 * `readEventStream` from `tollgate/event-stream`.
 *
 *   npx tsx examples/event-stream.ts
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { AgentLoop, toEventStream, tool } from "tollgate";
import { readEventStream } from "tollgate/event-stream";
import { scriptedProvider } from "tollgate/testing";
import { z } from "zod";

const getTime = tool({
  name: "get_time",
  description: "The time in a city",
  input: z.object({ city: z.string() }),
  execute: ({ city }) => `12:00 in ${city}`,
});
const loop = new AgentLoop({
  provider: scriptedProvider(
    [
      { toolCalls: [{ name: "get_time", args: { city: "Lima" } }] },
      { text: "It is 12:00 in Lima." },
    ],
    { stream: true },
  ),
  tools: [getTime],
});

// The server: in Bun, Deno or an edge handler, return the Response as it is.
function handle(loop: AgentLoop, request: Request): Response {
  const city = new URL(request.url).searchParams.get("city") ?? "Lima";
  return toEventStream(loop.stream(`What time is it in ${city}?`, { signal: request.signal }), {
    errorMessage: (error) => {
      console.error(error); // the browser sees only the text returned here
      return "the run failed";
    },
  });
}

// Node's http server, adapted: a client that goes away cancels the body, which ends the run.
const server = createServer((req, res) => {
  const controller = new AbortController();
  res.on("close", () => controller.abort());
  const response = handle(
    loop,
    new Request(`http://${req.headers.host}${req.url}`, { signal: controller.signal }),
  );
  response.headers.forEach((value, name) => {
    res.setHeader(name, value);
  });
  res.writeHead(response.status);
  pipeline(Readable.fromWeb(response.body as never), res).catch(() => {});
});
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
const { port } = server.address() as AddressInfo;

// The client: what a browser page runs, with `fetch`.
async function watch(url: string): Promise<string> {
  let text = "";
  for await (const event of readEventStream(await fetch(url))) {
    if (event.type === "tool-decision") console.log(`${event.toolName}: ${event.verdict}`);
    if (event.type === "text-delta") text += event.text;
    if (event.type === "run-finish") console.log(`run-finish: ${event.status}`);
  }
  return text;
}
console.log(`streamed text: ${await watch(`http://127.0.0.1:${port}/?city=Lima`)}`);
server.close();
