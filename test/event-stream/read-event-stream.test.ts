/**
 * toEventStream and readEventStream: a real run streamed as server-sent events through a
 * Node HTTP server on 127.0.0.1 and read back with fetch, as a browser would.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { AgentLoop, type LoopEvent, toEventStream, tool } from "tollgate";
import { EventStreamError, readEventStream, type StreamedEvent } from "tollgate/event-stream";
import { scriptedProvider } from "tollgate/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";

/** The server answers each request with the Response the test put under its path. */
const routes = new Map<string, () => Response>();
let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    const route = routes.get(req.url ?? "");
    if (!route) {
      res.writeHead(404).end();
      return;
    }
    const response = route();
    response.headers.forEach((value, name) => {
      res.setHeader(name, value);
    });
    res.writeHead(response.status);
    res.flushHeaders();
    // A client that goes away destroys the pipeline, which cancels the Response's body.
    pipeline(Readable.fromWeb(response.body as never), res).catch(() => {});
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** The events of a run as they arrive over HTTP. */
async function readAll(path: string): Promise<StreamedEvent[]> {
  const events: StreamedEvent[] = [];
  for await (const event of readEventStream(await fetch(base + path))) events.push(event);
  return events;
}

const getTime = tool({
  name: "get_time",
  description: "The time in a city",
  input: z.object({ city: z.string() }),
  execute: ({ city }) => `12:00 in ${city}`,
});

describe("toEventStream over HTTP", () => {
  it("sends every event of a run, in order, and readEventStream reads the same events", async () => {
    const seen: LoopEvent[] = [];
    const loop = new AgentLoop({
      provider: scriptedProvider(
        [
          { text: "Checking.", toolCalls: [{ name: "get_time", args: { city: "Lima" } }] },
          { text: "It is 12:00 in Lima." },
        ],
        { stream: true },
      ),
      tools: [getTime],
      onEvent: (event) => {
        seen.push(event);
      },
    });
    // includeState: the frames carry the events whole (by default, without the run's state).
    routes.set("/same", () => toEventStream(loop.stream("Time in Lima?"), { includeState: true }));
    const read = await readAll("/same");
    expect(read.map((event) => event.type)).toContain("text-delta");
    expect(read.at(-1)?.type).toBe("run-finish");
    expect(read).toEqual(JSON.parse(JSON.stringify(seen)));
  });

  it("writes one frame per event with an id, SSE headers, and an end frame", async () => {
    const loop = new AgentLoop({ provider: scriptedProvider([{ text: "Hi." }]) });
    routes.set("/raw", () => toEventStream(loop.stream("Hello"), { headers: { "x-run": "1" } }));
    const response = await fetch(`${base}/raw`);
    expect(response.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    expect(response.headers.get("cache-control")).toBe("no-cache, no-transform");
    expect(response.headers.get("x-run")).toBe("1");
    const text = await response.text();
    expect(text).toMatch(/^id: 1\nevent: run-start\ndata: \{"type":"run-start",/);
    expect(text).toMatch(/\nid: \d+\nevent: run-finish\ndata: \{"type":"run-finish",.*\}\n\n/);
    expect(text.endsWith("\n\nevent: end\ndata: {}\n\n")).toBe(true);
  });

  it("a client that goes away mid-run ends the run (abandoned, its signal aborted)", async () => {
    const firstMayEnd = deferred();
    const cancelled = deferred();
    const ended = deferred<LoopEvent>();
    const first = tool({
      name: "first",
      description: "Waits until the test lets it end",
      input: z.object({}),
      execute: async () => {
        await firstMayEnd.promise;
        return "done";
      },
    });
    const untilAborted = tool({
      name: "until_aborted",
      description: "Ends only when the run is aborted",
      input: z.object({}),
      execute: (_args, ctx) =>
        new Promise((_resolve, reject) => {
          ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason));
        }),
    });
    const provider = scriptedProvider([
      { toolCalls: [{ name: "first", args: {} }] },
      { toolCalls: [{ name: "until_aborted", args: {} }] },
      { text: "never reached" },
    ]);
    const loop = new AgentLoop({
      provider,
      tools: [first, untilAborted],
      onEvent: (event) => {
        if (event.type === "run-error" || event.type === "run-finish") ended.resolve(event);
      },
    });
    routes.set("/abort", () => {
      const inner = loop.stream("Go")[Symbol.asyncIterator]();
      // Watches toEventStream close the events' iterator when the client goes away.
      const watched: AsyncIterableIterator<LoopEvent> = {
        next: () => inner.next(),
        return: (value?: unknown) => {
          cancelled.resolve();
          return inner.return(value);
        },
        [Symbol.asyncIterator]() {
          return this;
        },
      };
      return toEventStream(watched);
    });
    for await (const event of readEventStream(await fetch(`${base}/abort`))) {
      if (event.type === "tool-call") break; // the client goes away while `first` runs
    }
    await cancelled.promise;
    firstMayEnd.resolve();
    const last = await ended.promise;
    expect(last.type).toBe("run-error");
    // Abandoned when the client went away, while `first` ran: no second model call.
    expect(provider.requests).toHaveLength(1);
  });

  it("a run that throws ends with an error frame carrying only the redacted message", async () => {
    const loop = new AgentLoop({
      provider: scriptedProvider([{ error: new Error("db password is hunter2") }]),
    });
    routes.set("/error", () => toEventStream(loop.stream("Hello")));
    const text = await (await fetch(`${base}/error`)).text();
    expect(text).not.toContain("hunter2");
    expect(text.endsWith('event: error\ndata: {"message":"the run failed"}\n\n')).toBe(true);

    const error = await readAll("/error").catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(EventStreamError);
    expect(error).toMatchObject({ message: "the run failed", serverError: true });

    const logged: unknown[] = [];
    routes.set("/error-message", () =>
      toEventStream(loop.stream("Hello"), {
        errorMessage: (cause) => {
          logged.push(cause);
          return "the model is unavailable, try again";
        },
      }),
    );
    await expect(readAll("/error-message")).rejects.toThrow("the model is unavailable, try again");
    expect(logged).toHaveLength(1);
  });

  it("sends keep-alive comments while the run is quiet, which the reader skips", async () => {
    const mayEnd = deferred();
    const slow = tool({
      name: "slow",
      description: "Waits until the test lets it end",
      input: z.object({}),
      execute: async () => {
        await mayEnd.promise;
        return "done";
      },
    });
    const loop = new AgentLoop({
      provider: scriptedProvider([{ toolCalls: [{ name: "slow", args: {} }] }, { text: "Done." }]),
      tools: [slow],
    });
    routes.set("/keep-alive", () => toEventStream(loop.stream("Go"), { keepAliveMs: 5 }));
    const reader = (await fetch(`${base}/keep-alive`)).body!.getReader();
    const decoder = new TextDecoder();
    let text = "";
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
      if (text.includes(": keep-alive\n\n")) mayEnd.resolve();
    }
    expect(text).toContain("\n\n: keep-alive\n\n");
    const events: StreamedEvent[] = [];
    const replayed = new Response(text, { headers: { "content-type": "text/event-stream" } });
    for await (const event of readEventStream(replayed)) events.push(event);
    expect(events.at(-1)).toMatchObject({ type: "run-finish", status: "completed" });
  });
});

describe("toEventStream in process", () => {
  async function* someEvents(...events: unknown[]): AsyncGenerator<LoopEvent> {
    for (const event of events) yield event as LoopEvent;
  }

  it("refuses unknown options and bad values, with a did-you-mean", () => {
    const events = someEvents();
    expect(() => toEventStream(events, { keepAlive: 5 } as never)).toThrow(
      /unknown option `keepAlive`; did you mean `keepAliveMs`\?/,
    );
    expect(() => toEventStream(events, { keepAliveMs: -1 })).toThrow(TypeError);
    expect(() => toEventStream(events, { errorMessage: "no" as never })).toThrow(TypeError);
    expect(() => toEventStream([] as never)).toThrow(/an async iterable/);
  });

  it("says what to do with a run's promise, or a signal given to it instead of the run", () => {
    const promise = Promise.resolve({ status: "completed" });
    expect(() => toEventStream(promise as never)).toThrow(
      /got an object \(a promise: pass loop\.stream\(…\) or loop\.resumeStream\(…\), not run\(\) or resume\(\)\)/,
    );
    const signal = new AbortController().signal;
    expect(() => toEventStream(someEvents(), { signal } as never)).toThrow(
      /`signal` is not an option here; give it to the run: loop\.stream\(input, \{ signal \}\)/,
    );
  });

  it("leaves a tool's error and stack out of tool-error events, nested ones too", async () => {
    const toolError = {
      type: "tool-error",
      runId: "r",
      step: 0,
      toolCallId: "c",
      toolName: "t",
      error: new Error("internal path /srv/secret"),
      stack: "Error: at /srv/secret.ts:1",
    };
    const nested = {
      type: "sub-run",
      runId: "r",
      step: 0,
      toolCallId: "c",
      toolName: "t",
      event: toolError,
    };
    const text = await toEventStream(someEvents(toolError, nested)).text();
    expect(text).not.toContain("secret");
    const events: StreamedEvent[] = [];
    for await (const event of readEventStream(toEventStream(someEvents(toolError, nested)))) {
      events.push(event);
    }
    expect(events).toEqual([
      { type: "tool-error", runId: "r", step: 0, toolCallId: "c", toolName: "t" },
      {
        ...nested,
        event: { type: "tool-error", runId: "r", step: 0, toolCallId: "c", toolName: "t" },
      },
    ]);
  });

  it("an event JSON cannot carry, or no event at all, ends the stream with an error frame", async () => {
    const big = { type: "text-delta", runId: "r", step: 0, text: 1n };
    await expect(readEventStream(toEventStream(someEvents(big))).next()).rejects.toThrow(
      "the run failed",
    );
    await expect(readEventStream(toEventStream(someEvents("text"))).next()).rejects.toThrow(
      "the run failed",
    );
  });
});

describe("readEventStream refuses what is not a run's event stream", () => {
  const sse = (body: string, type = "text/event-stream") =>
    new Response(body, { headers: { "content-type": type } });
  const read = async (response: Response) => {
    for await (const _event of readEventStream(response)) {
      // drained
    }
  };

  it.each([
    [
      "data that is not JSON",
      sse("event: text-delta\ndata: {oops\n\nevent: end\ndata: {}\n\n"),
      /not JSON/,
    ],
    [
      "a frame without an event line",
      sse('data: {"type":"x"}\n\nevent: end\ndata: {}\n\n'),
      /no event: line/,
    ],
    [
      "data of another type",
      sse('event: run-start\ndata: {"type":"run-finish"}\n\n'),
      /not a run-start event/,
    ],
    [
      "a stream cut before its end frame",
      sse('event: run-start\ndata: {"type":"run-start","runId":"r"}\n\n'),
      /ended before the run did/,
    ],
    ["a malformed error frame", sse("event: error\ndata: nope\n\n"), /error frame is malformed/],
    [
      "an event no run sends",
      sse('event: bogus\ndata: {"type":"bogus","runId":"r"}\n\n'),
      /no event is named "bogus"/,
    ],
    [
      "an event without its run id",
      sse('event: run-start\ndata: {"type":"run-start"}\n\n'),
      /not a run-start event \(an object with its type and runId\)/,
    ],
    ["another content type", sse("{}", "application/json"), /text\/event-stream/],
    [
      "an error status",
      new Response("no", { status: 502 }),
      /answered 502, not an event stream: no$/,
    ],
  ])("%s", async (_name, response, message) => {
    const error = await read(response).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(EventStreamError);
    expect((error as Error).message).toMatch(message);
  });

  it("an error status carries the status and the start of the server's words", async () => {
    const words = JSON.stringify({ error: `no resume of run r-1 to watch ${"x".repeat(300)}` });
    const error = (await read(new Response(words, { status: 404 })).catch(
      (e) => e,
    )) as EventStreamError;
    expect(error.status).toBe(404);
    expect(error.serverError).toBe(false);
    expect(error.message).toMatch(
      /^the server answered 404, not an event stream: \{"error":"no resume of run r-1 to watch x+…$/,
    );
    expect(error.message.length).toBeLessThan(300);
  });

  /**
   * A server on 127.0.0.1 that answers with `answer`; `closed` resolves when the client's
   * connection closes (the client went away).
   */
  async function rawServer(answer: (res: import("node:http").ServerResponse) => void) {
    let closed!: () => void;
    const gone = new Promise<"closed">((resolve) => {
      closed = () => resolve("closed");
    });
    const raw = createServer((req, res) => {
      req.socket.on("close", closed);
      answer(res);
    });
    await new Promise<void>((resolve) => raw.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(raw.address() as AddressInfo).port}/`;
    const stop = async () => {
      raw.closeAllConnections();
      await new Promise((resolve) => raw.close(resolve));
    };
    return { url, gone, stop };
  }
  const soon = (ms: number) =>
    new Promise<"still open">((resolve) => setTimeout(() => resolve("still open"), ms));

  it("an error status whose body never ends: refused within a second, the connection closed", async () => {
    const { url, gone, stop } = await rawServer((res) => {
      res.writeHead(500, { "content-type": "text/plain" });
      res.write("partial error ");
    });
    try {
      const error = await read(await fetch(url)).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(EventStreamError);
      expect((error as EventStreamError).message).toBe(
        "the server answered 500, not an event stream: partial error ",
      );
      expect(await Promise.race([gone, soon(2_000)])).toBe("closed");
    } finally {
      await stop();
    }
  });

  it("a response refused for its content type closes the connection, so the server stops", async () => {
    const { url, gone, stop } = await rawServer((res) => {
      res.writeHead(200, { "content-type": "text/plain" });
      res.write("event: run-start\n");
    });
    try {
      await expect(read(await fetch(url))).rejects.toThrow(/got text\/plain/);
      expect(await Promise.race([gone, soon(2_000)])).toBe("closed");
    } finally {
      await stop();
    }
  });

  it("a connection cut mid-stream is an EventStreamError with the cause, not the fetch's TypeError", async () => {
    const { url, stop } = await rawServer((res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write('event: run-start\ndata: {"type":"run-start","runId":"r","resumed":false}\n\n');
      setTimeout(() => res.destroy(), 20);
    });
    try {
      const seen: string[] = [];
      const error = await (async () => {
        for await (const event of readEventStream(await fetch(url))) seen.push(event.type);
      })().catch((e: unknown) => e);
      expect(seen).toEqual(["run-start"]);
      expect(error).toBeInstanceOf(EventStreamError);
      expect((error as Error).message).toMatch(/^the event stream was cut before the run ended \(/);
      expect((error as Error).cause).toBeInstanceOf(Error);
    } finally {
      await stop();
    }
  });

  it("a body already read, or being read, is refused, not a TypeError of the stream", async () => {
    const used = sse("event: end\ndata: {}\n\n");
    await used.text();
    await expect(read(used)).rejects.toThrow(/body was already read: give a fresh response/);
    const locked = sse("event: end\ndata: {}\n\n");
    locked.body?.getReader();
    await expect(read(locked)).rejects.toThrow(EventStreamError);
  });
});
