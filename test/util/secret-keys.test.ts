/**
 * One rule for what a credential's name is (src/util/secret-keys.ts), checked through each of
 * its three users: a cassette recording (`recordProvider`), a provider's error message (the
 * HTTP transport's `displayURL` and `configSecrets`), and free text (`redactKeyShapes`). Each
 * case is a name the three used to disagree on; all three now redact it.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AgentLoop, type ModelRequest, ProviderError } from "tollgate";
import { openAIChat } from "tollgate/openai";
import { recordProvider, replayProvider, scriptedProvider } from "tollgate/testing";
import { afterEach, describe, expect, it } from "vitest";
import { redactKeyShapes } from "../../src/util/key-shapes.js";
import { isSecretKey } from "../../src/util/secret-keys.js";
import { type ReplayServer, startReplayServer } from "../support/replay-server.js";

/** A value no shape gives away: only its name says it is a secret. */
const SECRET = "Zq9-unguessable-77";

/**
 * Names the rules disagreed on, with what each did before: cassettes (JSON keys), the HTTP
 * transport (header and query names), free text (`name=value`).
 */
const DISAGREEMENTS: ReadonlyArray<{ name: string; before: string }> = [
  { name: "session", before: "HTTP only" },
  { name: "sessionId", before: "HTTP only" },
  { name: "jsessionid", before: "HTTP only" },
  { name: "sig", before: "HTTP only" },
  { name: "signature", before: "HTTP only" },
  { name: "X-Amz-Signature", before: "HTTP only" },
  { name: "key", before: "HTTP only" },
  { name: "x-auth", before: "HTTP only" },
  { name: "credential", before: "HTTP only" },
  { name: "passphrase", before: "HTTP only" },
  { name: "access_key", before: "HTTP only" },
  { name: "token", before: "cassettes and HTTP, not text" },
  { name: "auth", before: "cassettes and HTTP, not text" },
  { name: "cookie", before: "cassettes and HTTP, not text" },
  { name: "authorization", before: "cassettes and HTTP, not text" },
];

let dir: string;
let server: ReplayServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});
const fresh = () => {
  dir ??= mkdtempSync(join(tmpdir(), "tollgate-secret-keys-"));
  return join(dir, `${Math.random().toString(36).slice(2)}.json`);
};

/** The cassette `recordProvider` writes for one run whose settings and prompt carry `name`. */
async function recordedWith(name: string): Promise<string> {
  const path = fresh();
  const provider = recordProvider(scriptedProvider([{ text: "done" }]), path);
  await new AgentLoop({ provider, settings: { [name]: SECRET } }).run(`${name}=${SECRET}`);
  return readFileSync(path, "utf8");
}

/** The error an adapter throws when its server refuses, echoing what it was sent. */
async function providerErrorWith(name: string): Promise<ProviderError> {
  server = await startReplayServer((request) => ({
    status: 401,
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      error: { message: `refused ${request.url} ${request.headers[`x-${name.toLowerCase()}`]}` },
    }),
  }));
  const provider = openAIChat({
    model: "m",
    apiKey: "sk-test-0123456789abcdef",
    baseURL: `${server.url}/v1?${name}=${SECRET}`,
    headers: { [`x-${name}`]: `${SECRET}-header` },
    maxRetries: 0,
  });
  const request: ModelRequest = { messages: [{ role: "user", content: "hi" }], tools: [] };
  return provider.generate(request, {}).then(
    () => {
      throw new Error("expected a rejection");
    },
    (error: ProviderError) => error,
  );
}

describe.each(DISAGREEMENTS)("$name (before: $before)", ({ name }) => {
  it("is a credential's name", () => {
    expect(isSecretKey(name)).toBe(true);
  });

  it("a cassette recording redacts it, as a key and in text", async () => {
    const written = await recordedWith(name);
    expect(written).not.toContain(SECRET);
    const request = JSON.parse(written).calls[0].request;
    expect(request.settings[name]).toBe("[redacted]");
    expect(JSON.stringify(request.messages)).toContain(`${name}=[redacted]`);
  });

  it("a provider error message redacts it, in the query and in a header's echo", async () => {
    const error = await providerErrorWith(name);
    expect(error).toBeInstanceOf(ProviderError);
    expect(`${error.message} ${error.body}`).not.toContain(SECRET);
    expect(error.message).toContain(`${name}=[redacted]`);
  });

  it("key-shapes redacts the value after it in free text", () => {
    for (const text of [`${name}=${SECRET}`, `"${name}": "${SECRET}"`, `${name}: ${SECRET}`]) {
      expect(redactKeyShapes(text)).not.toContain(SECRET);
    }
    expect(redactKeyShapes(`?a=1&${name}=${SECRET}&b=2`)).toBe(`?a=1&${name}=[redacted]&b=2`);
  });
});

describe("the treatments the one rule changed on purpose", () => {
  it("bearer: cassettes redacted it, HTTP did not; now both do (text keeps `Bearer` as the scheme)", async () => {
    expect(isSecretKey("bearer")).toBe(true);
    const path = fresh();
    const provider = recordProvider(scriptedProvider([{ text: "done" }]), path);
    await new AgentLoop({ provider, settings: { bearer: SECRET } }).run("go");
    expect(readFileSync(path, "utf8")).not.toContain(SECRET);
    const error = await providerErrorWith("bearer");
    expect(`${error.message} ${error.body}`).not.toContain(SECRET);
    // "Bearer <token>" is redacted by its shape; the word itself names no field.
    expect(redactKeyShapes("Authorization: Bearer abcdefgh12345")).toBe(
      "Authorization: Bearer [redacted]",
    );
  });

  it("token counts stay readable everywhere: HTTP's substring rule hid `max_tokens`, the words do not", async () => {
    for (const name of ["max_tokens", "inputTokens", "maxOutputTokens", "budget_tokens"]) {
      expect(isSecretKey(name)).toBe(false);
    }
    server = await startReplayServer([{ status: 500, body: "down" }]);
    const provider = openAIChat({
      model: "m",
      apiKey: "sk-test-0123456789abcdef",
      baseURL: `${server.url}/v1?max_tokens=4096`,
      maxRetries: 0,
    });
    const error = await provider
      .generate({ messages: [{ role: "user", content: "hi" }], tools: [] }, {})
      .then(
        () => undefined,
        (e: ProviderError) => e,
      );
    expect(error?.message).toContain("max_tokens=4096");
    const path = fresh();
    await new AgentLoop({
      provider: recordProvider(scriptedProvider([{ text: "done" }]), path),
      settings: { maxOutputTokens: 64 },
    }).run("go");
    const call = JSON.parse(readFileSync(path, "utf8")).calls[0];
    expect(call.request.settings.maxOutputTokens).toBe(64);
    expect(typeof call.response.usage.inputTokens).toBe("number");
  });

  it("words inside another word are no credential's: keyword, author, signal, tokenizer", () => {
    for (const name of ["keyword", "author", "signal", "tokenizer", "X-Amz-SignedHeaders"]) {
      expect(isSecretKey(name)).toBe(false);
    }
    for (const name of ["apiKey", "x-api-key", "client_secret", "passwordHash", "oauth"]) {
      expect(isSecretKey(name)).toBe(true);
    }
  });

  it("a cassette recorded before a name counted as a credential still replays", async () => {
    const path = fresh();
    await new AgentLoop({
      provider: recordProvider(scriptedProvider([{ text: "done" }]), path),
      settings: { session: SECRET },
    }).run("go");
    // Written as the old rule wrote it: the session in the clear.
    const cassette = JSON.parse(readFileSync(path, "utf8"));
    cassette.calls[0].request.settings.session = SECRET;
    writeFileSync(path, JSON.stringify(cassette));
    const replayed = await new AgentLoop({
      provider: replayProvider(path),
      settings: { session: SECRET },
    }).run("go");
    expect(replayed.text).toBe("done");
  });
});
