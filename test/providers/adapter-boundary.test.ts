import { anthropic } from "tollgate/anthropic";
import { gemini } from "tollgate/gemini";
import { openAIChat, openAIResponses } from "tollgate/openai";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ProviderError } from "../../src/errors.js";
import type { Provider } from "../../src/types/provider.js";
import {
  type ReplayAnswer,
  type ReplayServer,
  startReplayServer,
} from "../support/replay-server.js";
import { jsonAnswer, runStream, sse, userRequest } from "./support/recordings.js";

/** One adapter, and what its requests and answers look like on the wire. */
interface Adapter {
  /** The factory's name, as its TypeErrors say it. */
  where: string;
  /** The provider name its ProviderErrors say. */
  provider: string;
  make(options: Record<string, unknown>): Provider;
  /** The base path the API lives under. */
  base: string;
  /** Where `generate` and `stream` POST to, under `base`. */
  generatePath: string;
  streamPath: string;
  /** What its JSON answers are called in errors. */
  expected: string;
  /** A minimal valid JSON answer. */
  answer: string;
  /** The environment variable its key comes from. */
  env: string;
}

const ADAPTERS: Adapter[] = [
  {
    where: "openAIChat",
    provider: "openai",
    make: (options) => openAIChat(options as never),
    base: "/v1",
    generatePath: "/chat/completions",
    streamPath: "/chat/completions",
    expected: "a chat completion (JSON with `choices`)",
    answer: '{"choices":[{"message":{"content":"hi"},"finish_reason":"stop"}]}',
    env: "OPENAI_API_KEY",
  },
  {
    where: "openAIResponses",
    provider: "openai",
    make: (options) => openAIResponses(options as never),
    base: "/v1",
    generatePath: "/responses",
    streamPath: "/responses",
    expected: "a response (JSON with `output`)",
    answer:
      '{"status":"completed","output":[{"type":"message","content":[{"type":"output_text","text":"hi"}]}]}',
    env: "OPENAI_API_KEY",
  },
  {
    where: "anthropic",
    provider: "anthropic",
    make: (options) => anthropic(options as never),
    base: "/v1",
    generatePath: "/messages",
    streamPath: "/messages",
    expected: "a message (JSON with `content`)",
    answer: '{"type":"message","content":[{"type":"text","text":"hi"}],"stop_reason":"end_turn"}',
    env: "ANTHROPIC_API_KEY",
  },
  {
    where: "gemini",
    provider: "gemini",
    make: (options) => gemini(options as never),
    base: "/v1beta",
    generatePath: "/models/gemini-test:generateContent",
    streamPath: "/models/gemini-test:streamGenerateContent?alt=sse",
    expected: "a GenerateContentResponse (JSON with `candidates`)",
    answer: '{"candidates":[{"content":{"parts":[{"text":"hi"}]},"finishReason":"STOP"}]}',
    env: "GEMINI_API_KEY",
  },
];

/** Every secret below has "SECRET" in it, so one search finds any of them, or the start of one. */
const KEY = "sk-SECRET-0123456789abcdef";
const HEADER_SECRET = "hdr-SECRET-0123456789abcdef";
const QUERY_SECRET = "qry-SECRET-0123456789abcdef";

let server: ReplayServer | undefined;
afterEach(async () => {
  vi.unstubAllEnvs();
  await server?.close();
  server = undefined;
});

/** A server giving `answers`, and the adapter made against it with the test key and no retries. */
async function serve(adapter: Adapter, answers: ReplayAnswer[], options = {}) {
  server = await startReplayServer(answers);
  const provider = adapter.make({
    model: "gemini-test",
    baseURL: `${server.url}${adapter.base}`,
    apiKey: KEY,
    maxRetries: 0,
    ...options,
  });
  return { server, provider, url: `${server.url}${adapter.base}` };
}

/** What `fn` threw. */
function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error("expected a throw");
}

/** What a `generate` call rejected with. */
const generateError = async (provider: Provider): Promise<ProviderError> =>
  provider.generate(userRequest("hi"), {}).then(
    () => {
      throw new Error("expected a rejection");
    },
    (error: ProviderError) => error,
  );

/** What a `stream` call ended with. */
async function streamError(provider: Provider): Promise<ProviderError> {
  const { error } = await runStream(provider, userRequest("hi"));
  if (!error) throw new Error("expected the stream to fail");
  return error as ProviderError;
}

/** Everything an error shows: its message, `String()`, and all its own props (and its causes'). */
function everythingIn(error: unknown, depth = 0): string {
  if (!(error instanceof Error) || depth > 4) return String(error);
  const props = Object.fromEntries(
    Object.getOwnPropertyNames(error).map((name) => [name, (error as never)[name]]),
  );
  const json = JSON.stringify(props, (_, value) =>
    value instanceof Error ? everythingIn(value, depth + 1) : value,
  );
  return [error.message, String(error), json].join("\n");
}

const html = (body: string): ReplayAnswer => ({
  headers: { "content-type": "text/html; charset=utf-8" },
  body,
});

describe.each(ADAPTERS)("$where: options are checked when the adapter is made", (adapter) => {
  const make = (options: Record<string, unknown>) => () =>
    adapter.make({ model: "gemini-test", baseURL: "http://127.0.0.1:1/v1", ...options });

  it.each([
    ["localhost:11434/v1", "http://localhost:11434/v1"],
    ["127.0.0.1:8080/v1", "http://127.0.0.1:8080/v1"],
    ["api.openai.com/v1", "https://api.openai.com/v1"],
    ["http:/localhost:11434/v1", "http://localhost:11434/v1"],
  ])("a baseURL without a scheme (%s) is a TypeError that says what to write", (baseURL, fix) => {
    const error = thrown(make({ baseURL }));
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toBe(
      `${adapter.where}: \`baseURL\` "${baseURL}" is not an absolute URL; write "${fix}"`,
    );
  });

  it.each([
    [
      "",
      'is empty; leave it out for the default, or write a URL like "https://api.example.com/v1"',
    ],
    [" http://localhost:1234/v1", 'has spaces around it; write "http://localhost:1234/v1"'],
    [
      "ftp://files.example.com/v1",
      '"ftp://files.example.com/v1" must use http or https, e.g. "https://files.example.com/v1"',
    ],
    [
      "http://exa mple.com/v1",
      '"http://exa mple.com/v1" is not a valid URL; write it like "https://api.example.com/v1"',
    ],
    [
      "https://user:pw@example.com/v1",
      "must not hold a user name or password (fetch refuses such URLs); pass the key as `apiKey` or in `headers`",
    ],
    ["https://example.com/v1#top", 'must not have a #fragment; write "https://example.com/v1"'],
    [42, 'must be a URL string like "https://api.example.com/v1"'],
  ])("a baseURL that is not an absolute http(s) URL (%j) is a TypeError", (baseURL, problem) => {
    const error = thrown(make({ baseURL }));
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toBe(`${adapter.where}: \`baseURL\` ${problem}`);
  });

  it.each([
    [
      "an empty model",
      { model: "" },
      '`model` must be the model id, a non-empty string without spaces around it, got ""',
    ],
    [
      "no model",
      { model: undefined },
      "`model` must be the model id, a non-empty string without spaces around it, got undefined",
    ],
    [
      "a fetch that is not a function",
      { fetch: "fetch" },
      '`fetch` must be a function like the global `fetch`, got "fetch"',
    ],
    [
      "a negative timeout",
      { timeoutMs: -1 },
      "`timeoutMs` must be a number of ms >= 0 (0 or Infinity: no timeout), got -1",
    ],
    [
      "a negative retry count",
      { maxRetries: -1 },
      "`maxRetries` must be a whole number >= 0, got -1",
    ],
    [
      "a retry count of NaN (which retried forever)",
      { maxRetries: Number.NaN },
      "`maxRetries` must be a whole number >= 0, got NaN",
    ],
    [
      "a header value that is not a string",
      { headers: { "x-count": 1 } },
      '`headers` "x-count" must be a string, got a number',
    ],
    [
      "a Headers object (whose entries were silently dropped)",
      { headers: new Headers({ "api-key": "k" }) },
      "`headers` must be a plain object, got a Headers object; pass Object.fromEntries(headers)",
    ],
    [
      "settings that are not an object",
      { settings: "fast" },
      '`settings` must be an object of settings, got "fast"',
    ],
  ])("%s is a TypeError naming the option", (_, options, problem) => {
    const error = thrown(make(options));
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toBe(`${adapter.where}: ${problem}`);
  });

  it("a misspelled option is a TypeError with a did-you-mean, not a silent default", () => {
    const error = thrown(() => adapter.make({ model: "m", baseUrl: "http://localhost:11434/v1" }));
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toMatch(
      new RegExp(`^${adapter.where}: unknown option \`baseUrl\`; did you mean \`baseURL\`\\?`),
    );
  });

  it("an apiKey with a line break inside is a TypeError that does not show the key", () => {
    const error = thrown(make({ apiKey: `${KEY}\nx` }));
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toBe(
      `${adapter.where}: \`apiKey\` holds a line break or NUL inside it; check how the key was read`,
    );
  });

  it("a baseURL with a query keeps it on every request, after the adapter's own", async () => {
    server = await startReplayServer([jsonAnswer(adapter.answer)]);
    const provider = adapter.make({
      model: "gemini-test",
      baseURL: `${server.url}${adapter.base}/?api-version=2024-10-21`,
      apiKey: KEY,
    });
    const response = await provider.generate(userRequest("hi"), {});
    expect(response.parts).toEqual([{ type: "text", text: "hi" }]);
    expect(server.requests[0]?.url).toBe(
      `${adapter.base}${adapter.generatePath}?api-version=2024-10-21`,
    );
  });
});

describe.each(ADAPTERS)("$where: a 2xx answer that is not the API's", (adapter) => {
  it("an HTML page (a proxy's login page) is a ProviderError with status, content type and body", async () => {
    const page =
      "<!doctype html>\n<html><head><title>Sign in</title></head><body>Sign in to continue</body></html>";
    const { provider, server, url } = await serve(adapter, [html(page)], { maxRetries: 2 });
    const error = await generateError(provider);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error.message).toBe(
      `${adapter.provider} sent HTTP 200 (text/html; charset=utf-8) instead of ${adapter.expected}; check \`baseURL\`. Body: "<!doctype html> <html><head><title>Sign in</title></head><body>Sign in to continue</body></html>" (POST ${url}${adapter.generatePath})`,
    );
    expect(error.status).toBe(200);
    expect(error.retryable).toBe(false);
    expect(error.body).toBe(page);
    expect(server.requests).toHaveLength(1);
  });

  it.each([
    ["an empty body", "", "empty"],
    ["an empty object", "{}", '"{}"'],
    ["null", "null", '"null"'],
    ["an array", "[]", '"[]"'],
    [
      "another API's JSON",
      '{"model":"m","message":{"role":"assistant"}}',
      '"{"model":"m","message":{"role":"assistant"}}"',
    ],
  ])("%s is a ProviderError, not an empty answer or a TypeError", async (_, body, shown) => {
    const { provider, url } = await serve(adapter, [jsonAnswer(body)]);
    const error = await generateError(provider);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error.message).toBe(
      `${adapter.provider} sent HTTP 200 (application/json) instead of ${adapter.expected}; check \`baseURL\`. Body: ${shown} (POST ${url}${adapter.generatePath})`,
    );
    expect(error.retryable).toBe(false);
  });

  it("shows only the first 200 characters of a long body", async () => {
    const { provider } = await serve(adapter, [html(`<p>${"a".repeat(500)}</p>`)]);
    const error = await generateError(provider);
    expect(error.message).toContain(`Body: "<p>${"a".repeat(197)}…" (POST `);
  });

  it('a JSON {"error": …} body is the provider\'s own error, with the URL', async () => {
    const { provider, url } = await serve(adapter, [
      jsonAnswer('{"error":{"message":"You exceeded your quota","type":"insufficient_quota"}}'),
    ]);
    const error = await generateError(provider);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error.message).toBe(
      `${adapter.provider} reported an error (insufficient_quota): You exceeded your quota (POST ${url}${adapter.generatePath})`,
    );
    expect(error.retryable).toBe(false);
  });

  it("a stream answered with a whole JSON body is a ProviderError, not a truncated stream", async () => {
    const { provider, server, url } = await serve(adapter, [jsonAnswer(adapter.answer)], {
      maxRetries: 2,
    });
    const error = await streamError(provider);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error.message).toBe(
      `${adapter.provider} sent HTTP 200 (application/json) instead of an event stream (text/event-stream); check \`baseURL\`. Body: "${adapter.answer}" (POST ${url}${adapter.streamPath})`,
    );
    expect(error.retryable).toBe(false);
    expect(server.requests).toHaveLength(1);
  });

  it("a stream answered with an HTML page is a ProviderError with its start", async () => {
    const { provider } = await serve(adapter, [html("<html>Sign in</html>")]);
    const error = await streamError(provider);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error.message).toMatch(
      /sent HTTP 200 \(text\/html; charset=utf-8\) instead of an event stream \(text\/event-stream\); check `baseURL`\. Body: "<html>Sign in<\/html>"/,
    );
  });

  it("a stream event that is JSON but not an object is a ProviderError, not a TypeError", async () => {
    const { provider } = await serve(adapter, [sse("data: null\n\n", {})]);
    const error = await streamError(provider);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error.message).toBe(
      `${adapter.provider} sent a stream event that is not a JSON object: null`,
    );
    expect(error.retryable).toBe(false);
  });
});

describe.each(ADAPTERS)("$where: HTTP errors name the URL and hold no secret", (adapter) => {
  it("an HTTP error names the URL it called", async () => {
    const { provider, url } = await serve(adapter, [
      jsonAnswer('{"error":{"message":"boom"}}', 500),
    ]);
    const error = await generateError(provider);
    expect(error.message).toBe(
      `${adapter.provider} returned HTTP 500: boom (POST ${url}${adapter.generatePath})`,
    );
  });

  it("a refused connection names the URL it called", async () => {
    const closed = await startReplayServer([]);
    await closed.close();
    const provider = adapter.make({
      model: "gemini-test",
      baseURL: `${closed.url}${adapter.base}`,
      apiKey: KEY,
      maxRetries: 0,
    });
    const error = await generateError(provider);
    expect(error.message).toMatch(/^\w+ connection failed: .+ \(POST http:\/\/127\.0\.0\.1:\d+\//);
    expect(
      error.message.endsWith(`(POST ${closed.url}${adapter.base}${adapter.generatePath})`),
    ).toBe(true);
  });

  it("the key, credential headers and `key=` in the query appear nowhere in the error", async () => {
    const echo = `${KEY} ${HEADER_SECRET} ${QUERY_SECRET}`;
    const answers: ReplayAnswer[] = [
      jsonAnswer(JSON.stringify({ error: { message: `Invalid key: ${echo}` } }), 401),
      jsonAnswer(`${"p".repeat(190)}${echo}`, 401, "text/plain"),
      html(`${"p".repeat(190)}${echo}`),
      html(`<p>${echo}</p>`),
      jsonAnswer(JSON.stringify({ note: echo })),
    ];
    server = await startReplayServer(answers);
    const provider = adapter.make({
      model: "gemini-test",
      baseURL: `${server.url}${adapter.base}?key=${QUERY_SECRET}`,
      apiKey: KEY,
      headers: { "api-key": HEADER_SECRET },
      maxRetries: 0,
    });
    const errors = [
      await generateError(provider),
      await generateError(provider),
      await generateError(provider),
      await streamError(provider),
      await streamError(provider),
    ];
    expect(server.requests[0]?.url).toContain(`key=${QUERY_SECRET}`);
    for (const error of errors) {
      expect(error).toBeInstanceOf(ProviderError);
      expect(everythingIn(error)).not.toContain("SECRET");
      expect(error.message).toContain("key=[redacted]");
    }
  });

  it("a key from the environment that breaks the header never shows in the error", async () => {
    vi.stubEnv(adapter.env, `${KEY}\nx`);
    server = await startReplayServer([jsonAnswer(adapter.answer)]);
    const baseURL = `${server.url}${adapter.base}`;
    // OPENAI_API_KEY goes only where OPENAI_BASE_URL (or OpenAI itself) is.
    const openAI = adapter.env === "OPENAI_API_KEY";
    if (openAI) vi.stubEnv("OPENAI_BASE_URL", baseURL);
    const provider = adapter.make({
      model: "gemini-test",
      ...(openAI ? {} : { baseURL }),
      maxRetries: 0,
    });
    const error = await generateError(provider);
    expect(error).toBeInstanceOf(ProviderError);
    expect(everythingIn(error)).not.toContain("SECRET");
  });
});

describe("OPENAI_API_KEY never travels to another host", () => {
  it.each([
    ["openAIChat", openAIChat, '{"choices":[{"message":{"content":"hi"},"finish_reason":"stop"}]}'],
    [
      "openAIResponses",
      openAIResponses,
      '{"status":"completed","output":[{"type":"message","content":[{"type":"output_text","text":"hi"}]}]}',
    ],
  ] as const)(
    "%s: sent to OPENAI_BASE_URL's server, not to an explicit baseURL elsewhere",
    async (_where, make, answer) => {
      vi.stubEnv("OPENAI_API_KEY", "sk-openai-secret");
      server = await startReplayServer([
        jsonAnswer(answer),
        jsonAnswer(answer),
        jsonAnswer(answer),
      ]);
      const baseURL = `${server.url}/v1`;
      await make({ model: "m", baseURL, maxRetries: 0 }).generate(userRequest("hi"), {});
      await make({ model: "m", baseURL, apiKey: "sk-router", maxRetries: 0 }).generate(
        userRequest("hi"),
        {},
      );
      vi.stubEnv("OPENAI_BASE_URL", baseURL);
      await make({ model: "m", maxRetries: 0 }).generate(userRequest("hi"), {});
      const auth = server.requests.map((request) => request.headers.authorization);
      expect(auth).toEqual([undefined, "Bearer sk-router", "Bearer sk-openai-secret"]);
    },
  );
});

describe("OPENAI_BASE_URL is checked like baseURL", () => {
  it.each([
    ["openAIChat", openAIChat],
    ["openAIResponses", openAIResponses],
  ] as const)("%s: a value without a scheme is a TypeError naming the variable", (where, make) => {
    vi.stubEnv("OPENAI_BASE_URL", "localhost:11434/v1");
    const error = thrown(() => make({ model: "m" }));
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toBe(
      `${where}: OPENAI_BASE_URL "localhost:11434/v1" is not an absolute URL; write "http://localhost:11434/v1"`,
    );
  });
});

describe("each adapter's own options are checked too", () => {
  const factories: Record<string, (options: never) => Provider> = {
    openAIChat,
    openAIResponses,
    anthropic,
  };
  it.each([
    ["openAIChat", { name: "" }, '`name` must be a non-empty string, got ""'],
    [
      "openAIChat",
      { maxTokensParam: "max_output_tokens" },
      '`maxTokensParam` must be "max_completion_tokens" or "max_tokens", got "max_output_tokens"',
    ],
    ["openAIResponses", { name: "" }, '`name` must be a non-empty string, got ""'],
    ["anthropic", { maxTokens: 0 }, "`maxTokens` must be a whole number >= 1, got 0"],
  ])("%s: %j is a TypeError", (where, options, problem) => {
    const error = thrown(() => factories[where]?.({ model: "m", ...options } as never));
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toBe(`${where}: ${problem}`);
  });
});
