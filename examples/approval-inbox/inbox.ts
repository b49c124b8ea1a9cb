/**
 * An approval inbox over any `FullRunStore`: a small HTTP server (node:http, no framework) and
 * one static page. It lists the runs waiting for approval, with each waiting call and the run's
 * transcript; a human approves, edits (approves with edited args, checked against the tool's
 * schema here first) or refuses each call; the worker resumes the run and the page watches its
 * events live (`toEventStream` here, `readEventStream` in the page).
 *
 * Routes: `GET /` (the page), `GET /api/pending`, `POST /api/runs/:runId/decisions`,
 * `GET /api/runs/:runId/events` (server-sent events). It has no login: it listens on 127.0.0.1
 * only by default; put it behind your own authentication before it listens anywhere else. Every
 * request must come to an address the inbox serves (`Host`) and, when it says where it comes
 * from (`Origin`), from one: a DNS-rebinding page or another site's page gets a 403.
 */
import { readFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type {
  ApprovalDecisions,
  FullRunStore,
  LoopEvent,
  Message,
  PendingApproval,
  Tool,
} from "tollgate";
import { ResumeError, toEventStream } from "tollgate";
import { eventStreamModule } from "./browser-module.js";
import { callKey, checkedDecisions, InboxError } from "./decisions.js";
import { checkedOrigins, checkOwnOrigin, isWildcard } from "./own-origin.js";

/**
 * Who resumes runs: the loop in this process (`inProcessWorker(loop)`), or a worker pool
 * behind a queue. Both methods are called only after the inbox checked the decisions.
 */
export interface InboxWorker {
  /**
   * Starts resuming a run with these decisions (each carries its call's digest from the store).
   * Resolve once the resume is accepted; reject with the loop's `ResumeError` when it is not (the
   * page shows its message).
   */
  resume(runId: string, decisions: ApprovalDecisions): Promise<void>;
  /**
   * The events of the run's latest resume, from its first event, live until the run ends (or
   * throws); `undefined` when this worker knows no resume of the run (the inbox's 404). It may
   * answer through a promise, when finding out takes a round trip.
   */
  events(
    runId: string,
  ): AsyncIterable<LoopEvent> | undefined | Promise<AsyncIterable<LoopEvent> | undefined>;
}

/** What `createInbox` takes. */
export interface InboxOptions extends InboxWorker {
  /** Where the paused runs are: the same store the loop writes to. */
  store: FullRunStore;
  /** The loop's tools: edited args are checked against their schemas before anything resumes. */
  tools: Iterable<Tool<any>>;
  /** Called with each unexpected error (a 500); default `console.error`. */
  onError?: ((error: unknown) => void) | undefined;
  /**
   * Where browsers reach the inbox besides 127.0.0.1, localhost and [::1] on its port (and the
   * host given to `listen`): origins such as `"https://inbox.example.com"` behind your proxy.
   * A request whose `Host` or `Origin` is none of these is refused (403).
   */
  origins?: string[] | undefined;
}

/** A call waiting for a human, as the page gets it. */
export interface InboxCall extends Omit<PendingApproval, "digest" | "subRun"> {
  /** The key the page decides the call by (`callKey`). */
  key: string;
  /** The tool's JSON Schema, shown next to the args. */
  inputSchema?: Record<string, unknown>;
}

/** A run waiting for approval, as the page gets it. */
export interface InboxRun {
  runId: string;
  stateId: string;
  calls: InboxCall[];
  transcript: Message[];
}

/** A running inbox: the request handler, to mount yourself, or `listen` and `close`. */
export interface Inbox {
  handler(request: IncomingMessage, response: ServerResponse): void;
  /** Listens on `host` (default 127.0.0.1) and `port` (default 0: any free port); resolves with its URL. */
  listen(port?: number, host?: string): Promise<string>;
  /** Stops listening and ends open connections (event streams too). */
  close(): Promise<void>;
}

/** The page's own files, served as they are (no build step). */
const PAGE: Record<string, { file: string; type: string }> = {
  "/": { file: "index.html", type: "text/html; charset=utf-8" },
  "/app.js": { file: "app.js", type: "text/javascript; charset=utf-8" },
  "/style.css": { file: "style.css", type: "text/css; charset=utf-8" },
};
const PAGE_DIR = new URL("./page/", import.meta.url);
/** The largest decisions body the inbox reads. */
const MAX_BODY = 64 * 1024;
const RUN_PATH = /^\/api\/runs\/([^/]+)\/(decisions|events)$/;

/** Creates the inbox. Nothing listens until `listen()` (or until you mount `handler`). */
export function createInbox(options: InboxOptions): Inbox {
  const { store, onError = console.error } = options;
  const origins = checkedOrigins(options.origins);
  /** The host `listen` was given, unless it stands for every address. */
  let listenHost: string | undefined;
  const tools = new Map<string, Tool>([...options.tools].map((tool) => [tool.name, tool]));
  const vendor = eventStreamModule().files;

  async function route(request: IncomingMessage, response: ServerResponse): Promise<void> {
    checkOwnOrigin(request, listenHost, origins);
    const url = new URL(request.url ?? "/", "http://inbox.invalid");
    const { pathname } = url;
    const page = PAGE[pathname];
    if (page) {
      only("GET", request, pathname);
      const body = await readFile(new URL(page.file, PAGE_DIR));
      return send(response, 200, page.type, body);
    }
    if (pathname.startsWith("/vendor/")) {
      only("GET", request, pathname);
      const code = await vendor(pathname.slice("/vendor/".length));
      if (code === undefined) throw new InboxError(404, `no file ${pathname}`);
      return send(response, 200, "text/javascript; charset=utf-8", code);
    }
    if (pathname === "/api/pending") {
      only("GET", request, pathname);
      return json(response, 200, { runs: await waitingRuns(store, tools) });
    }
    const [, encodedId, action] = RUN_PATH.exec(pathname) ?? [];
    if (encodedId === undefined) throw new InboxError(404, `no route ${pathname}`);
    const runId = decodedRunId(encodedId);
    if (action === "decisions") {
      only("POST", request, pathname);
      const body = await jsonBody(request);
      const decisions = await checkedDecisions(store, tools, runId, body);
      try {
        await options.resume(runId, decisions);
      } catch (error) {
        if (!(error instanceof ResumeError)) throw error;
        throw await refusal(store, runId, (body as { stateId: string }).stateId, error);
      }
      return json(response, 202, { runId, events: `/api/runs/${encodedId}/events` });
    }
    only("GET", request, pathname);
    const events = await options.events(runId);
    if (!events) throw new InboxError(404, `no resume of run ${runId} to watch`);
    return stream(response, toEventStream(events, { errorMessage: logged(onError) }));
  }

  const handler = (request: IncomingMessage, response: ServerResponse) => {
    route(request, response).catch((error: unknown) => {
      if (!(error instanceof InboxError)) onError(error);
      const refused = error instanceof InboxError ? error : undefined;
      if (response.headersSent) return void response.destroy();
      if (refused?.allow !== undefined) response.setHeader("allow", refused.allow);
      json(response, refused?.status ?? 500, {
        error: refused?.message ?? "the inbox failed (see the server's log)",
        ...(refused?.callKey === undefined ? {} : { callKey: refused.callKey }),
      });
    });
  };
  const server = createServer(handler);
  return {
    handler,
    listen(port = 0, host = "127.0.0.1") {
      return new Promise((resolve, reject) => {
        server.once("error", reject);
        listenHost = isWildcard(host) ? undefined : host;
        server.listen(port, host, () => {
          const address = server.address() as AddressInfo;
          resolve(`http://${host}:${address.port}/`);
        });
      });
    },
    close() {
      return new Promise((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      });
    },
  };
}

/** A path the inbox knows, asked with another method: a 405 that says which one it takes. */
function only(method: "GET" | "POST", request: IncomingMessage, pathname: string): void {
  if (request.method === method) return;
  throw new InboxError(
    405,
    `${pathname} takes ${method}, not ${request.method}`,
    undefined,
    method,
  );
}

/** The run id in a path, percent-decoded; a malformed encoding is the client's error (a 400). */
function decodedRunId(encoded: string): string {
  try {
    return decodeURIComponent(encoded);
  } catch {
    throw new InboxError(400, "the run id in the URL is malformed (a bad percent-encoding)");
  }
}

/**
 * The 409 for a resume the worker refused, in words for the human who clicked. The loop says
 * `retryable` only while another process holds the run (a resume of it is under way); a state
 * that has moved on since was decided already. Any other refusal keeps the loop's words.
 */
async function refusal(
  store: FullRunStore,
  runId: string,
  stateId: string,
  error: ResumeError,
): Promise<InboxError> {
  if (error.retryable) {
    return new InboxError(
      409,
      "this run is already being resumed (a decision was just sent); reload to see it",
    );
  }
  const now = await store.get(runId);
  if (now?.stateId !== stateId || now.status !== "needs_approval") {
    return new InboxError(409, "this decision was already made; reload");
  }
  return new InboxError(409, error.message);
}

/** Every run waiting for approval, oldest first (all pages), with its transcript. */
async function waitingRuns(
  store: FullRunStore,
  tools: ReadonlyMap<string, Tool>,
): Promise<InboxRun[]> {
  const runs: InboxRun[] = [];
  let cursor: string | undefined;
  do {
    const page = await store.listPending({ limit: 100, ...(cursor ? { cursor } : {}) });
    for (const run of page.runs) {
      if (run.status !== "needs_approval") continue; // client-side results are not decided here
      const state = await store.get(run.runId);
      if (state?.stateId !== run.stateId) continue; // it moved on while we paged
      const calls = run.pending.map((pending) => {
        const { digest: _digest, subRun: _subRun, ...call } = pending;
        const inputSchema = tools.get(call.toolName)?.inputSchema;
        return { ...call, key: callKey(pending), ...(inputSchema ? { inputSchema } : {}) };
      });
      runs.push({ runId: run.runId, stateId: run.stateId, calls, transcript: state.messages });
    }
    cursor = page.cursor;
  } while (cursor);
  return runs;
}

/** Reads a JSON body: at most `MAX_BODY` bytes, `content-type: application/json` only. */
async function jsonBody(request: IncomingMessage): Promise<unknown> {
  const type = request.headers["content-type"] ?? "";
  // A form on another site cannot send this type without a CORS preflight, which we never allow.
  if (!/^application\/json\s*(;|$)/i.test(type)) {
    throw new InboxError(415, "send the decisions as application/json");
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY) throw new InboxError(413, `the body is larger than ${MAX_BODY} bytes`);
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch {
    throw new InboxError(400, "the body is not valid JSON");
  }
}

function send(response: ServerResponse, status: number, type: string, body: string | Buffer) {
  response.writeHead(status, {
    "content-type": type,
    "cache-control": "no-store",
    "x-content-type-options": "nosniff",
  });
  response.end(body);
}

function json(response: ServerResponse, status: number, value: unknown) {
  send(response, status, "application/json; charset=utf-8", JSON.stringify(value));
}

/** A web `Response` (the event stream) written to Node's response; a client leaving cancels it. */
async function stream(response: ServerResponse, web: Response): Promise<void> {
  web.headers.forEach((value, name) => {
    response.setHeader(name, value);
  });
  response.writeHead(web.status);
  await pipeline(Readable.fromWeb(web.body as never), response).catch(() => {});
}

function logged(onError: (error: unknown) => void) {
  return (error: unknown) => {
    onError(error);
    return "the run failed (see the server's log)";
  };
}
