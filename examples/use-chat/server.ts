/**
 * The chat example's server: Node's `http` on 127.0.0.1 serving the page (index.html, style.css
 * and app.js, bundled at start) and `POST /api/chat`, which is tollgate/ui's `chatResponse` over
 * the agent of agent.ts. `toRequest` and `send` are the whole of what Node's `http` needs to run
 * a web-standard route handler. Open the printed URL and chat; stop it with Ctrl-C.
 *
 *   npx tsx examples/use-chat/server.ts [port]
 */
import { readFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ReadableStream as NodeReadableStream } from "node:stream/web";
import { pathToFileURL } from "node:url";
import { chatResponse } from "tollgate/ui";
import { chatAgent } from "./agent.js";
import { bundleApp } from "./bundle.js";

/** The server, and the agent behind it (its `refunds` say what ran). */
export interface ChatServer {
  agent: ReturnType<typeof chatAgent>;
  /** Listens on 127.0.0.1 (a free port by default); resolves with the page's URL. */
  listen(port?: number): Promise<string>;
  close(): Promise<void>;
}

/** The chat's server over a new agent of agent.ts; the page's script is bundled first. */
export async function createChatServer(): Promise<ChatServer> {
  const agent = chatAgent();
  const { loop, store } = agent;
  const page = (name: string) => readFile(new URL(`./page/${name}`, import.meta.url), "utf8");
  const files: Record<string, { type: string; body: string }> = {
    "/": { type: "text/html", body: await page("index.html") },
    "/style.css": { type: "text/css", body: await page("style.css") },
    "/app.js": { type: "text/javascript", body: await bundleApp() },
  };

  const server = createServer(async (req, res) => {
    try {
      const { pathname } = new URL(req.url ?? "/", "http://localhost");
      if (pathname === "/api/chat") {
        return await send(await chatResponse(toRequest(req, res), { loop, store }), res);
      }
      const file = req.method === "GET" ? files[pathname] : undefined;
      const response = file
        ? new Response(file.body, { headers: { "content-type": `${file.type}; charset=utf-8` } })
        : new Response("not found", { status: 404 });
      await send(response, res);
    } catch (error) {
      console.error(error);
      if (!res.headersSent) res.writeHead(500).end("internal error");
      else res.destroy();
    }
  });

  return {
    agent,
    listen: (port = 0) =>
      new Promise((resolve, reject) => {
        server.once("error", reject);
        server.listen(port, "127.0.0.1", () => {
          resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
        });
      }),
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections(); // the browser's keep-alive connections too
      }),
  };
}

/**
 * Node's request as a web `Request`: method, URL, headers and the body as a stream. Its signal
 * aborts when the client goes away before the response is sent (so does the run).
 */
export function toRequest(req: IncomingMessage, res: ServerResponse): Request {
  const controller = new AbortController();
  res.once("close", () => {
    if (!res.writableFinished) controller.abort();
  });
  const headers = new Headers();
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    headers.append(req.rawHeaders[i]!, req.rawHeaders[i + 1]!);
  }
  const hasBody = req.method !== "GET" && req.method !== "HEAD";
  return new Request(new URL(req.url ?? "/", `http://${req.headers.host ?? "localhost"}`), {
    method: req.method ?? "GET",
    headers,
    body: hasBody ? (Readable.toWeb(req) as ReadableStream<Uint8Array>) : null,
    duplex: "half", // what fetch asks of a streamed request body
    signal: controller.signal,
  } as RequestInit);
}

/** A web `Response` written to Node's: status, headers, then the body as it streams. */
export async function send(response: Response, res: ServerResponse): Promise<void> {
  const headers: string[] = []; // [name, value, name, value, …]: each Set-Cookie stays its own
  response.headers.forEach((value, name) => {
    headers.push(name, value);
  });
  res.writeHead(response.status, headers);
  if (!response.body) return void res.end();
  try {
    await pipeline(Readable.fromWeb(response.body as NodeReadableStream<Uint8Array>), res);
  } catch (error) {
    // The client went away: pipeline cancelled the body. Anything else is a real failure.
    if ((error as { code?: string }).code !== "ERR_STREAM_PREMATURE_CLOSE") throw error;
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const server = await createChatServer();
  console.log(`use-chat: ${await server.listen(Number(process.argv[2] ?? 8788))}`);
  process.once("SIGINT", () => void server.close());
}
