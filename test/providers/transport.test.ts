import { afterEach, describe, expect, it } from "vitest";
import { ProviderError } from "../../src/errors.js";
import { backoffMs, retryAfterMs } from "../../src/http/retry.js";
import type { SSEEvent } from "../../src/http/sse.js";
import { createTransport, type TransportConfig } from "../../src/http/transport.js";
import {
  type ReplayScript,
  type ReplayServer,
  startReplayServer,
} from "../support/replay-server.js";

const KEY = "sk-test-0123456789abcdef";
let server: ReplayServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function serve(script: ReplayScript): Promise<ReplayServer> {
  server = await startReplayServer(script);
  return server;
}

function transport(url: string, config: Partial<TransportConfig> = {}) {
  return createTransport({
    provider: "test",
    baseURL: url,
    auth: {
      apiKey: KEY,
      env: ["TOLLGATE_TEST_KEY"],
      required: true,
      headers: (key) => ({ authorization: `Bearer ${key}` }),
    },
    ...config,
  });
}

const rejection = async (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => {
      throw new Error("expected a rejection");
    },
    (error: unknown) => error,
  );

async function drain(events: AsyncIterable<SSEEvent>, onEvent?: () => void): Promise<SSEEvent[]> {
  const seen: SSEEvent[] = [];
  for await (const event of events) {
    seen.push(event);
    onEvent?.();
  }
  return seen;
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) => ({
  status,
  headers: { "content-type": "application/json", ...headers },
  body: JSON.stringify(body),
});

describe("transport: requests", () => {
  it("POSTs JSON with the auth header and the caller's headers", async () => {
    const { url, requests } = await serve([json(200, { ok: true })]);
    const answer = await transport(url, { headers: { "x-extra": "1" } }).json("/v1/things?x=1", {
      a: 1,
    });
    expect(answer).toEqual({ ok: true });
    expect(requests[0]?.method).toBe("POST");
    expect(requests[0]?.url).toBe("/v1/things?x=1");
    expect(requests[0]?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(requests[0]?.headers["content-type"]).toBe("application/json");
    expect(requests[0]?.headers["x-extra"]).toBe("1");
    expect(requests[0]?.json()).toEqual({ a: 1 });
  });

  it("refuses to send without a required key, naming the env variables", async () => {
    const { url, requests } = await serve([json(200, {})]);
    const t = transport(url, {
      auth: { apiKey: undefined, env: ["TOLLGATE_NOPE_KEY"], required: true, headers: () => ({}) },
    });
    const error = await rejection(t.json("/x", {}));
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as Error).message).toContain("TOLLGATE_NOPE_KEY");
    expect(requests).toHaveLength(0);
  });

  it("reads the key from the environment when none is given", async () => {
    const { url, requests } = await serve([json(200, {})]);
    process.env.TOLLGATE_TEST_ENV_KEY = "from-env-key-123";
    try {
      const t = transport(url, {
        auth: {
          apiKey: undefined,
          env: ["TOLLGATE_TEST_ENV_KEY"],
          required: true,
          headers: (key) => ({ "x-api-key": key }),
        },
      });
      await t.json("/x", {});
      expect(requests[0]?.headers["x-api-key"]).toBe("from-env-key-123");
    } finally {
      delete process.env.TOLLGATE_TEST_ENV_KEY;
    }
  });
});

describe("transport: retries", () => {
  it("retries a 429 after the Retry-After seconds", async () => {
    const { url, requests } = await serve([
      json(429, { error: { message: "slow down" } }, { "retry-after": "1" }),
      json(200, { ok: 1 }),
    ]);
    expect(await transport(url).json("/x", {})).toEqual({ ok: 1 });
    expect(requests).toHaveLength(2);
    const waited = (requests[1]?.receivedAt ?? 0) - (requests[0]?.receivedAt ?? 0);
    expect(waited).toBeGreaterThanOrEqual(900);
    expect(waited).toBeLessThan(8_000);
  });

  it("honours retry-after-ms and an HTTP-date Retry-After", async () => {
    const date = new Date(Date.now() + 1_500).toUTCString();
    const { url, requests } = await serve([
      json(503, {}, { "retry-after-ms": "50" }),
      json(503, {}, { "retry-after": date }),
      json(200, { ok: 1 }),
    ]);
    await transport(url).json("/x", {});
    expect(requests).toHaveLength(3);
    const [first, second, third] = requests.map((r) => r.receivedAt) as [number, number, number];
    expect(second - first).toBeGreaterThanOrEqual(40);
    // An HTTP date has whole-second precision: the wait is at least ~0.5 s of the 1.5 s asked.
    expect(third - second).toBeGreaterThanOrEqual(400);
  });

  it("retries 408, 409 and 5xx up to maxRetries, then throws the last error", async () => {
    const { url, requests } = await serve([
      json(408, { error: { message: "timeout" } }, { "retry-after-ms": "1" }),
      json(409, { error: { message: "conflict" } }, { "retry-after-ms": "1" }),
      json(502, { error: { message: "bad gateway" } }, { "retry-after-ms": "1" }),
    ]);
    const error = (await rejection(
      transport(url, { maxRetries: 2 }).json("/x", {}),
    )) as ProviderError;
    expect(requests).toHaveLength(3);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error.status).toBe(502);
    expect(error.retryable).toBe(true);
    expect(error.provider).toBe("test");
    expect(error.message).toContain("bad gateway");
    expect(error.body).toContain("bad gateway");
  });

  it("does not retry a 400", async () => {
    const { url, requests } = await serve([json(400, { error: { message: "bad" } })]);
    const error = (await rejection(transport(url).json("/x", {}))) as ProviderError;
    expect(requests).toHaveLength(1);
    expect(error.retryable).toBe(false);
    expect(error.status).toBe(400);
  });

  it("lets x-should-retry override the status both ways", async () => {
    const { url, requests } = await serve([
      json(500, { error: { message: "no" } }, { "x-should-retry": "false" }),
      json(400, { error: { message: "yes" } }, { "x-should-retry": "true", "retry-after-ms": "1" }),
      json(200, { ok: 1 }),
    ]);
    const first = (await rejection(transport(url).json("/x", {}))) as ProviderError;
    expect(first.retryable).toBe(false);
    expect(requests).toHaveLength(1);
    expect(await transport(url).json("/x", {})).toEqual({ ok: 1 });
    expect(requests).toHaveLength(3);
  });

  it("gives back at once, still retryable, a Retry-After longer than a minute", async () => {
    const { url, requests } = await serve([json(429, {}, { "retry-after": "3600" })]);
    const started = performance.now();
    const error = (await rejection(transport(url).json("/x", {}))) as ProviderError;
    expect(error.retryable).toBe(true);
    expect(requests).toHaveLength(1);
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it("retries a connection cut while the answer is read", async () => {
    const { url, requests } = await serve([
      {
        status: 200,
        headers: { "content-type": "application/json" },
        body: '{"ok":',
        cutAfterBytes: 3,
      },
      json(200, { ok: 2 }),
    ]);
    expect(await transport(url).json("/x", {})).toEqual({ ok: 2 });
    expect(requests).toHaveLength(2);
  });

  it("turns a refused connection into a retryable ProviderError", async () => {
    const closed = await startReplayServer([]);
    await closed.close();
    const error = (await rejection(
      transport(closed.url, { maxRetries: 0 }).json("/x", {}),
    )) as ProviderError;
    expect(error).toBeInstanceOf(ProviderError);
    expect(error.retryable).toBe(true);
    expect(error.status).toBeUndefined();
    expect(error.message).toMatch(/^test connection failed/);
  });
});

describe("transport: timeout and abort", () => {
  it("times out a server that never answers, and closes the socket", async () => {
    const { url, requests } = await serve([{ hang: true }]);
    const started = performance.now();
    const error = (await rejection(
      transport(url, { timeoutMs: 300, maxRetries: 0 }).json("/x", {}),
    )) as ProviderError;
    expect(error).toBeInstanceOf(ProviderError);
    expect(error.message).toBe(`test request timed out after 300 ms (POST ${url}/x)`);
    expect(error.retryable).toBe(true);
    expect(performance.now() - started).toBeGreaterThanOrEqual(250);
    await requests[0]?.socketClosed;
    expect(requests[0]?.clientLeftEarly).toBe(true);
  });

  it("times out a stream that stalls halfway, after the events that came", async () => {
    const { url, requests } = await serve([
      {
        headers: { "content-type": "text/event-stream" },
        body: "data: 1\n\ndata: 2\n\n",
        stallAfterBytes: 9,
      },
    ]);
    const seen: string[] = [];
    let error: unknown;
    try {
      const events = transport(url, { timeoutMs: 400, maxRetries: 0 }).events("/x", {});
      for await (const event of events) seen.push(event.data);
    } catch (e) {
      error = e;
    }
    expect(seen).toEqual(["1"]);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as Error).message).toBe(`test request timed out after 400 ms (POST ${url}/x)`);
    await requests[0]?.socketClosed;
  });

  it("rejects with the signal's reason when aborted before the answer, and closes the socket", async () => {
    const { url, requests } = await serve([{ hang: true }]);
    const controller = new AbortController();
    const reason = new Error("user gave up");
    const pending = transport(url).json("/x", {}, controller.signal);
    await waitFor(() => requests.length === 1);
    controller.abort(reason);
    expect(await rejection(pending)).toBe(reason);
    await requests[0]?.socketClosed;
    expect(requests[0]?.clientLeftEarly).toBe(true);
  });

  it("stops a stream on abort: rejects with the reason and the server sees the socket close", async () => {
    const { url, requests } = await serve([
      {
        headers: { "content-type": "text/event-stream" },
        body: "data: 1\n\ndata: 2\n\n",
        stallAfterBytes: 9,
      },
    ]);
    const controller = new AbortController();
    const seen = drain(transport(url).events("/x", {}, controller.signal), () =>
      controller.abort(),
    );
    const error = await rejection(seen);
    expect(error).toBeInstanceOf(DOMException);
    expect((error as DOMException).name).toBe("AbortError");
    await requests[0]?.socketClosed;
    expect(requests[0]?.clientLeftEarly).toBe(true);
  });

  it("aborts a backoff wait at once", async () => {
    const { url, requests } = await serve([json(503, {}, { "retry-after": "30" })]);
    const controller = new AbortController();
    const pending = transport(url).json("/x", {}, controller.signal);
    await waitFor(() => requests.length === 1);
    const started = performance.now();
    controller.abort("stop");
    expect(await rejection(pending)).toBe("stop");
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(requests).toHaveLength(1);
  });

  it("does not send at all with an aborted signal", async () => {
    const { url, requests } = await serve([json(200, {})]);
    expect(await rejection(transport(url).json("/x", {}, AbortSignal.abort("early")))).toBe(
      "early",
    );
    expect(requests).toHaveLength(0);
  });

  it("closes the connection when the consumer stops reading a stream", async () => {
    const { url, requests } = await serve([
      {
        headers: { "content-type": "text/event-stream" },
        body: "data: 1\n\ndata: 2\n\n",
        stallAfterBytes: 9,
      },
    ]);
    for await (const event of transport(url).events("/x", {})) {
      expect(event.data).toBe("1");
      break;
    }
    await requests[0]?.socketClosed;
    expect(requests[0]?.clientLeftEarly).toBe(true);
  });
});

describe("transport: a stream's events", () => {
  const frames = Array.from({ length: 12 }, (_, i) => `event: e${i}\ndata: ${i}\n\n`).join("");
  const expected = Array.from({ length: 12 }, (_, i) => ({ event: `e${i}`, data: `${i}` }));

  it.each([
    ["all in one write", "whole"],
    ["cut into pieces of 1-97 bytes", "odd"],
    ["a byte at a time", 1],
  ] as const)("hands over every event in order, %s", async (_, split) => {
    const { url } = await serve([
      { headers: { "content-type": "text/event-stream" }, body: frames, split },
    ]);
    const seen = await drain(transport(url).events("/x", {}));
    expect(seen.map(({ event, data }) => ({ event, data }))).toEqual(expected);
  });

  it("sends the request on the first read, not before", async () => {
    const { url, requests } = await serve([
      { headers: { "content-type": "text/event-stream" }, body: "data: 1\n\n" },
    ]);
    const events = transport(url).events("/x", { a: 1 });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(requests).toHaveLength(0);
    expect((await events.next()).value?.data).toBe("1");
    expect(requests.map((request) => request.json())).toEqual([{ a: 1 }]);
    expect(await events.next()).toEqual({ value: undefined, done: true });
    expect(await events.next()).toEqual({ value: undefined, done: true });
  });

  it("names the request once when the connection is cut mid-stream, and does not retry it", async () => {
    const { url, requests } = await serve([
      {
        headers: { "content-type": "text/event-stream" },
        body: "data: 1\n\ndata: 2\n\n",
        cutAfterBytes: 9,
      },
      { headers: { "content-type": "text/event-stream" }, body: "data: again\n\n" },
    ]);
    const seen: string[] = [];
    const error = await rejection(
      (async () => {
        for await (const event of transport(url).events("/x", {})) seen.push(event.data);
      })(),
    );
    expect(seen).toEqual(["1"]);
    expect(error).toBeInstanceOf(ProviderError);
    const message = (error as Error).message;
    expect(message).toMatch(/^test connection failed: .+ \(POST http:\/\/127\.0\.0\.1:\d+\/x\)$/);
    expect(message.split("(POST ").length).toBe(2);
    expect(requests).toHaveLength(1);
  });

  it("refuses a 2xx answer that is not an event stream, naming the request", async () => {
    const { url } = await serve([json(200, { not: "a stream" })]);
    const error = await rejection(drain(transport(url).events("/x", {})));
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as Error).message).toContain(`(POST ${url}/x)`);
    expect((error as Error).message).toContain("text/event-stream");
  });

  it("throws from prepare on the first read when no key can be found, sending nothing", async () => {
    const { url, requests } = await serve([]);
    const events = transport(url, {
      auth: {
        apiKey: undefined,
        env: ["TOLLGATE_TEST_NO_SUCH_KEY"],
        required: true,
        headers: () => ({}),
      },
    }).events("/x", {});
    const error = await rejection(events.next());
    expect((error as Error).message).toContain("TOLLGATE_TEST_NO_SUCH_KEY");
    expect(await events.next()).toEqual({ value: undefined, done: true });
    expect(requests).toHaveLength(0);
  });
});

describe("transport: keys stay secret", () => {
  it("scrubs the key from error messages and bodies", async () => {
    const { url } = await serve([
      json(401, {
        error: { message: `Incorrect API key provided: ${KEY}`, type: "invalid_request_error" },
      }),
    ]);
    const error = (await rejection(transport(url).json("/x", {}))) as ProviderError;
    expect(error.message).toBe(
      `test returned HTTP 401 invalid_request_error: Incorrect API key provided: [redacted] (POST ${url}/x)`,
    );
    expect(error.body).not.toContain(KEY);
    expect(JSON.stringify(error)).not.toContain(KEY);
  });
});

describe("retry helpers", () => {
  it("reads Retry-After as seconds or date, and retry-after-ms first", () => {
    const now = Date.parse("Wed, 21 Oct 2015 07:28:00 GMT");
    expect(retryAfterMs(new Headers({ "retry-after": "2" }), now)).toBe(2000);
    expect(retryAfterMs(new Headers({ "retry-after": "0.5" }), now)).toBe(500);
    expect(retryAfterMs(new Headers({ "retry-after": "Wed, 21 Oct 2015 07:28:03 GMT" }), now)).toBe(
      3000,
    );
    expect(retryAfterMs(new Headers({ "retry-after": "2", "retry-after-ms": "120" }), now)).toBe(
      120,
    );
    expect(retryAfterMs(new Headers({ "retry-after": "soon" }), now)).toBeUndefined();
    expect(retryAfterMs(new Headers(), now)).toBeUndefined();
  });

  it("backs off exponentially, capped, with up to 25% jitter below", () => {
    expect(backoffMs(0, () => 0)).toBe(500);
    expect(backoffMs(1, () => 0)).toBe(1000);
    expect(backoffMs(3, () => 0)).toBe(4000);
    expect(backoffMs(10, () => 0)).toBe(8000);
    expect(backoffMs(1, () => 0.999)).toBeCloseTo(750.25, 1);
  });
});

async function waitFor(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !condition(); i++) await new Promise((r) => setTimeout(r, 10));
  if (!condition()) throw new Error("condition not met in time");
}
