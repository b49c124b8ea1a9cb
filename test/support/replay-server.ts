import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";

/** How the replay server answers one request. */
export interface ReplayAnswer {
  status?: number;
  headers?: Record<string, string>;
  /** The response body, sent byte for byte. */
  body?: string | Uint8Array;
  /**
   * How the body is cut into writes: `"whole"` (one write, the default); `"tricky"` (cut
   * between every "\r" and what follows, and inside every multi-byte UTF-8 character); `"odd"`
   * (seeded pieces of 1–97 bytes); or a fixed piece size in bytes.
   */
  split?: "whole" | "tricky" | "odd" | number;
  /** Pause between writes, in ms (default: none, just a turn of the event loop). */
  delayMs?: number;
  /** Never answer at all: no status line, no headers. */
  hang?: boolean;
  /** Send the status, headers and this many body bytes, then stall with the connection open. */
  stallAfterBytes?: number;
  /** Send this many body bytes, then destroy the socket (a connection cut mid-answer). */
  cutAfterBytes?: number;
}

/** One request the server received. */
export interface RecordedRequest {
  method: string;
  /** Path and query, e.g. `/v1/chat/completions`. */
  url: string;
  headers: IncomingMessage["headers"];
  body: string;
  /** When the request arrived (`performance.now()`). */
  receivedAt: number;
  /** The body parsed as JSON. */
  json(): any;
  /** Settles when the client's connection closes. */
  socketClosed: Promise<void>;
  /** Whether the client went away before the answer was complete. */
  readonly clientLeftEarly: boolean;
}

/** A loopback HTTP server that replays scripted answers and records what it was asked. */
export interface ReplayServer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

/** Answers to give, in order, or a function choosing the answer for each request. */
export type ReplayScript =
  | ReplayAnswer[]
  | ((request: RecordedRequest, index: number) => ReplayAnswer);

/** Where to cut `bytes` into writes. */
function cutPoints(bytes: Uint8Array, split: ReplayAnswer["split"]): number[] {
  const points: number[] = [];
  if (split === undefined || split === "whole") return points;
  if (typeof split === "number") {
    for (let at = split; at < bytes.length; at += split) points.push(at);
    return points;
  }
  if (split === "odd") {
    let seed = 0x2545f491;
    for (let at = 0; ; ) {
      seed = (seed * 1103515245 + 12345) >>> 0;
      at += 1 + (seed % 97);
      if (at >= bytes.length) return points;
      points.push(at);
    }
  }
  for (let at = 1; at < bytes.length; at++) {
    const previous = bytes[at - 1] as number;
    const current = bytes[at] as number;
    const afterCR = previous === 0x0d;
    const insideChar = (current & 0xc0) === 0x80; // a UTF-8 continuation byte
    if (afterCR || insideChar) points.push(at);
  }
  return points;
}

const pause = (ms: number) =>
  new Promise<void>((resolve) => (ms > 0 ? setTimeout(resolve, ms) : setImmediate(resolve)));

async function writeBody(res: ServerResponse, answer: ReplayAnswer): Promise<void> {
  const bytes =
    typeof answer.body === "string"
      ? Buffer.from(answer.body, "utf8")
      : (answer.body ?? new Uint8Array());
  const limit = answer.stallAfterBytes ?? answer.cutAfterBytes ?? bytes.length;
  let start = 0;
  for (const end of [...cutPoints(bytes, answer.split), bytes.length]) {
    const stop = Math.min(end, limit);
    if (stop > start) {
      if (res.destroyed) return;
      if (!res.write(bytes.subarray(start, stop))) {
        await new Promise((resolve) => res.once("drain", resolve));
      }
      start = stop;
      await pause(answer.delayMs ?? 0);
    }
    if (stop === limit) break;
  }
  if (answer.cutAfterBytes !== undefined) res.socket?.destroy();
  else if (answer.stallAfterBytes === undefined) res.end();
}

/**
 * Starts a replay server on 127.0.0.1 with a random port. Each request is recorded whole, then
 * answered by the script; a request past the end of a script list gets a 500 that says so.
 */
export async function startReplayServer(script: ReplayScript): Promise<ReplayServer> {
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString("utf8");
    let completed = false;
    const socket = req.socket;
    const recorded: RecordedRequest = {
      method: req.method ?? "",
      url: req.url ?? "",
      headers: req.headers,
      body,
      receivedAt: performance.now(),
      json: () => JSON.parse(body),
      socketClosed: new Promise((resolve) => {
        if (socket.destroyed) resolve();
        else socket.once("close", () => resolve());
      }),
      get clientLeftEarly() {
        return !completed && socket.destroyed;
      },
    };
    const index = requests.push(recorded) - 1;
    const answer =
      typeof script === "function"
        ? script(recorded, index)
        : (script[index] ?? {
            status: 500,
            body: JSON.stringify({
              error: { message: `replay server: no answer for request #${index}` },
            }),
          });
    if (answer.hang) return;
    res.writeHead(answer.status ?? 200, answer.headers ?? {});
    res.flushHeaders();
    await writeBody(res, answer);
    res.once("finish", () => {
      completed = true;
    });
    if (res.writableFinished) completed = true;
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        for (const socket of sockets) socket.destroy();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
