/**
 * noNetwork() (tollgate/testing): while on, every real adapter refuses before any request is
 * made, naming itself and how to record a cassette; replaying a cassette is unaffected.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AgentLoop, type Provider, ProviderError } from "tollgate";
import { fromAISDK } from "tollgate/ai-sdk";
import { anthropic } from "tollgate/anthropic";
import { gemini } from "tollgate/gemini";
import { openAIChat, openAIResponses } from "tollgate/openai";
import { noNetwork, recordProvider, replayProvider, scriptedProvider } from "tollgate/testing";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { type ReplayServer, startReplayServer } from "../support/replay-server.js";

let server: ReplayServer;
beforeAll(async () => {
  server = await startReplayServer(() => ({ status: 500, body: "{}" }));
});
afterAll(() => server.close());
afterEach(() => {
  noNetwork.off();
  vi.unstubAllEnvs();
});

/** An AI SDK language model (V3) that counts its calls; its answers are never reached here. */
const aiSdkModel = () => {
  const model = {
    specificationVersion: "v3" as const,
    provider: "mock.chat",
    modelId: "mock-1",
    supportedUrls: {},
    calls: 0,
    doGenerate: async () => {
      model.calls++;
      throw new Error("no answer");
    },
    doStream: async () => {
      model.calls++;
      throw new Error("no answer");
    },
  };
  return model;
};

const adapters: [string, () => Provider][] = [
  [
    "openAIChat",
    () => openAIChat({ model: "m", baseURL: `${server.url}/v1`, apiKey: "k", maxRetries: 0 }),
  ],
  [
    "openAIResponses",
    () => openAIResponses({ model: "m", baseURL: `${server.url}/v1`, apiKey: "k", maxRetries: 0 }),
  ],
  [
    "anthropic",
    () => anthropic({ model: "m", baseURL: `${server.url}/v1`, apiKey: "k", maxRetries: 0 }),
  ],
  [
    "gemini",
    () => gemini({ model: "m", baseURL: `${server.url}/v1beta`, apiKey: "k", maxRetries: 0 }),
  ],
  ["fromAISDK(mock.chat mock-1)", () => fromAISDK(aiSdkModel() as never, { maxRetries: 0 })],
];
const request = { messages: [{ role: "user" as const, content: "hi" }], tools: [] };

describe("noNetwork()", () => {
  it.each(adapters)(
    "%s refuses generate and stream before any request, naming itself",
    async (name, make) => {
      const before = server.requests.length;
      noNetwork();
      const provider = make();
      for (const call of [
        () => provider.generate(request, {}),
        async () => {
          for await (const _ of provider.stream!(request, {})) break;
        },
      ]) {
        const error = await call().catch((e: unknown) => e);
        expect(error).toBeInstanceOf(ProviderError);
        expect((error as ProviderError).retryable).toBe(false);
        expect((error as Error).message).toBe(
          `${name}: a real model request while noNetwork() is on, so nothing was sent. Test offline instead: replay a cassette (cassette(provider, "cassettes/<name>.json") from tollgate/testing), recorded once by running the test with TOLLGATE_CASSETTES=record (noNetwork() stays off while recording), or use a fake (scriptedProvider, functionProvider)`,
        );
      }
      expect(server.requests.length).toBe(before);
    },
  );

  it.each(adapters)("%s sends again once the guard is off", async (_name, make) => {
    const off = noNetwork();
    off();
    const before = server.requests.length;
    const error = await make()
      .generate(request, {})
      .catch((e: unknown) => e);
    expect((error as Error).message).not.toMatch(/noNetwork/);
    if (!_name.startsWith("fromAISDK")) expect(server.requests.length).toBe(before + 1);
  });

  it("fromAISDK never calls the model while the guard is on", async () => {
    const model = aiSdkModel();
    noNetwork();
    await expect(fromAISDK(model as never).generate(request, {})).rejects.toThrow(/noNetwork/);
    expect(model.calls).toBe(0);
    noNetwork.off();
    await expect(
      fromAISDK(model as never, { maxRetries: 0 }).generate(request, {}),
    ).rejects.toThrow();
    expect(model.calls).toBe(1);
  });

  it("guards nest: each off() turns off its own, off is idempotent, noNetwork.off() turns off all", () => {
    const flag = () => (globalThis as Record<symbol, unknown>)[Symbol.for("tollgate.noNetwork")];
    const first = noNetwork();
    const second = noNetwork();
    expect(flag()).toBe(2);
    first();
    first();
    expect(noNetwork.isOn()).toBe(true);
    second();
    expect(noNetwork.isOn()).toBe(false);
    expect(flag()).toBeUndefined();
    noNetwork();
    noNetwork();
    noNetwork.off();
    expect(noNetwork.isOn()).toBe(false);
  });

  it("a replayed cassette (and any fake) runs while the guard is on", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tollgate-no-network-"));
    try {
      const path = join(dir, "hi.json");
      await new AgentLoop({
        provider: recordProvider(scriptedProvider([{ text: "hello" }]), path),
        tools: [],
      }).run("hi");
      noNetwork();
      const result = await new AgentLoop({ provider: replayProvider(path), tools: [] }).run("hi");
      expect(result.text).toBe("hello");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("noNetwork() while recording cassettes", () => {
  it("stays off under TOLLGATE_CASSETTES=record (the test means to reach the model), on otherwise", () => {
    vi.stubEnv("TOLLGATE_CASSETTES", "record");
    const off = noNetwork();
    expect(noNetwork.isOn()).toBe(false);
    off();
    vi.stubEnv("TOLLGATE_CASSETTES", "replay");
    const offAgain = noNetwork();
    expect(noNetwork.isOn()).toBe(true);
    offAgain();
    expect(noNetwork.isOn()).toBe(false);
  });
});
