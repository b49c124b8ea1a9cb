/**
 * The real-HTTP section's stand-in for four model APIs, run in a process of its own so that
 * its CPU time is not the client's: `node <this, bundled> <fixtures dir>` listens on 127.0.0.1
 * (a free port), prints `{"url": …}` on a line, and serves until its stdin closes.
 *
 * The path says who asks and how long the run is: `/<client>-<N>/<the API's own path>`, e.g.
 * `/ai-5/v1/chat/completions` or `/tollgate-1/v1beta/models/m:streamGenerateContent?alt=sse`.
 * A request that sends back k tool results gets tool call k (k < N), or the text answer
 * (k = N), streamed when it asked for a stream (`"stream": true`, or Gemini's
 * `streamGenerateContent`), as JSON otherwise; a stream goes out one SSE frame per write, a
 * turn of the event loop apart, as a server writing events as they come. A request whose last
 * tool result does not answer the call the stand-in made, or that has more results than the run
 * has calls, gets a 400. `GET /stats` gives the requests served per client, N, API and mode.
 * The bytes are the recordings' (real-http-wire.ts).
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import {
  type Api,
  buildWires,
  expectedResult,
  toolResults,
  type WireAnswer,
} from "./real-http-wire.js";

/** The API a request path is for, and whether it asks Gemini for a stream. */
function route(path: string): { api: Api; geminiStream: boolean } | undefined {
  if (path.endsWith("/chat/completions")) return { api: "chat", geminiStream: false };
  if (path.endsWith("/responses")) return { api: "responses", geminiStream: false };
  if (path.endsWith("/messages")) return { api: "anthropic", geminiStream: false };
  if (path.includes(":streamGenerateContent")) return { api: "gemini", geminiStream: true };
  if (path.includes(":generateContent")) return { api: "gemini", geminiStream: false };
  return undefined;
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Starts the stand-in; resolves with its URL. */
export async function startStandIn(fixtures: string): Promise<{ url: string; close(): void }> {
  const wires = buildWires(fixtures);
  // Every answer built once: the stand-in's own work per request stays small and constant.
  const cache = new Map<string, WireAnswer>();
  const answer = (api: Api, step: number | "text", streamed: boolean) => {
    const key = `${api} ${step} ${streamed}`;
    let found = cache.get(key);
    if (!found) {
      found = step === "text" ? wires[api].text(streamed) : wires[api].toolCall(step, streamed);
      cache.set(key, found);
    }
    return found;
  };
  const expected = new Map<string, string>();
  const stats: Record<string, number> = {};
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const url = req.url ?? "";
    if (req.method === "GET" && url === "/stats") {
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(stats));
      return;
    }
    const fail = (message: string) => {
      res
        .writeHead(400, { "content-type": "application/json" })
        .end(JSON.stringify({ error: { type: "invalid_request_error", message } }));
    };
    const match = /^\/([a-z]+)-(\d+)(\/[^?]*)/.exec(url);
    const where = match && route(match[3]!);
    if (!match || !where) return fail(`stand-in: no API at ${url}`);
    const calls = Number(match[2]);
    const body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    const streamed = where.api === "gemini" ? where.geminiStream : body.stream === true;
    const { count, last } = toolResults(where.api, body);
    if (count > calls) return fail(`stand-in: ${count} tool results for a run of ${calls} calls`);
    if (count > 0) {
      const key = `${where.api} ${count - 1}`;
      let wanted = expected.get(key);
      if (wanted === undefined) {
        wanted = expectedResult(wires[where.api], where.api, count - 1);
        expected.set(key, wanted);
      }
      if (last !== wanted)
        return fail(`stand-in: last tool result for ${last}, expected ${wanted}`);
    }
    const statKey = `${match[1]}-${calls} ${where.api} ${streamed ? "sse" : "json"}`;
    stats[statKey] = (stats[statKey] ?? 0) + 1;
    const chosen = answer(where.api, count < calls ? count : "text", streamed);
    if (!chosen.frames) {
      res
        .writeHead(200, {
          "content-type": chosen.contentType,
          "content-length": Buffer.byteLength(chosen.body),
        })
        .end(chosen.body);
      return;
    }
    res.writeHead(200, { "content-type": chosen.contentType, "cache-control": "no-cache" });
    for (const frame of chosen.frames) {
      if (res.destroyed) return;
      res.write(frame);
      await turn();
    }
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

/** The child's entry (real-http.ts bundles this file with it and runs it). */
export async function standInMain(): Promise<void> {
  const fixtures = process.argv[2];
  if (!fixtures) throw new Error("real-http-server: pass the fixtures folder");
  const standIn = await startStandIn(fixtures);
  process.stdout.write(`${JSON.stringify({ url: standIn.url })}\n`);
  process.stdin.resume();
  process.stdin.once("end", () => {
    standIn.close();
    process.exit(0);
  });
}
