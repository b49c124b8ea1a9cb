import { AgentLoop, defineProvider, tool } from "tollgate";
import { scriptedProvider } from "tollgate/testing";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { hangingTool } from "../support/hanging-tool.js";

/** Resolves on the next macrotask: whatever settles before it settled within one event-loop turn. */
const nextTurn = () =>
  new Promise<"next turn">((resolve) => setImmediate(() => resolve("next turn")));

describe("abort", () => {
  it("mid-tool: the run rejects with the signal's reason within one event-loop turn, without waiting for the tool; the tool's signal aborts", async () => {
    const { hang, state } = hangingTool();
    const controller = new AbortController();
    const loop = new AgentLoop({
      provider: scriptedProvider([{ toolCalls: [{ name: "hang" }] }]),
      tools: [hang],
    });
    const settled = loop.run("go", { signal: controller.signal }).then(
      () => "resolved",
      (error: unknown) => error,
    );
    await state.started;
    const reason = new Error("user cancelled");
    controller.abort(reason);
    expect(await Promise.race([settled, nextTurn()])).toBe(reason);
    expect(state.signal?.aborted).toBe(true);
    expect(state.signal?.reason).toBe(reason);
  });

  it("a tool that reads its signal only after the abort finds it aborted, with the run's reason", async () => {
    let context: { signal: AbortSignal } | undefined;
    let markStarted!: () => void;
    const started = new Promise<void>((resolve) => (markStarted = resolve));
    const late = tool({
      name: "late",
      input: z.object({}),
      execute: (_args, ctx) => {
        context = ctx; // the signal itself is not read yet
        markStarted();
        return new Promise(() => {});
      },
    });
    const controller = new AbortController();
    const loop = new AgentLoop({
      provider: scriptedProvider([{ toolCalls: [{ name: "late" }] }]),
      tools: [late],
    });
    const settled = loop.run("go", { signal: controller.signal }).catch((error: unknown) => error);
    await started;
    const reason = new Error("user cancelled");
    controller.abort(reason);
    expect(await settled).toBe(reason);
    expect(context!.signal.aborted).toBe(true);
    expect(context!.signal.reason).toBe(reason);
    expect(context!.signal).toBe(context!.signal);
  });

  it("a loop's own signal outlives its runs: each run stops following it once it ends, and it still aborts the next run", async () => {
    const controller = new AbortController();
    const added: unknown[] = [];
    const removed: unknown[] = [];
    const { signal } = controller;
    const add = signal.addEventListener.bind(signal);
    const remove = signal.removeEventListener.bind(signal);
    signal.addEventListener = ((type: string, listener: () => void, options?: unknown) => {
      added.push(listener);
      add(type, listener, options as AddEventListenerOptions);
    }) as typeof signal.addEventListener;
    signal.removeEventListener = ((type: string, listener: () => void) => {
      removed.push(listener);
      remove(type, listener);
    }) as typeof signal.removeEventListener;
    const loop = new AgentLoop({
      provider: scriptedProvider([{ text: "one" }, { text: "two" }, { text: "three" }]),
      signal,
    });
    await loop.run("first");
    await loop.run("second");
    expect(added).toHaveLength(2);
    expect(removed).toEqual(added);
    const { hang, state } = hangingTool();
    const hanging = new AgentLoop({
      provider: scriptedProvider([{ toolCalls: [{ name: "hang" }] }]),
      tools: [hang],
      signal,
    });
    const settled = hanging.run("go").catch((error: unknown) => error);
    await state.started;
    controller.abort("stop");
    expect(await settled).toBe("stop");
    expect(state.signal?.aborted).toBe(true);
  });

  it("without a reason it rejects with an AbortError", async () => {
    const { hang, state } = hangingTool();
    const controller = new AbortController();
    const loop = new AgentLoop({
      provider: scriptedProvider([{ toolCalls: [{ name: "hang" }] }]),
      tools: [hang],
    });
    const settled = loop.run("go", { signal: controller.signal }).catch((error: unknown) => error);
    await state.started;
    controller.abort();
    const error = await Promise.race([settled, nextTurn()]);
    expect(error).toBeInstanceOf(DOMException);
    expect((error as DOMException).name).toBe("AbortError");
  });

  it("mid-model: a provider that ignores the signal does not hold the run", async () => {
    let providerSignal: AbortSignal | undefined;
    let called!: () => void;
    const calledPromise = new Promise<void>((resolve) => (called = resolve));
    const stuck = defineProvider({
      name: "stuck",
      model: "m",
      generate: (_request, { signal }) => {
        providerSignal = signal;
        called();
        return new Promise(() => {});
      },
    });
    const controller = new AbortController();
    const settled = new AgentLoop({ provider: stuck })
      .run("go", { signal: controller.signal })
      .catch((e: unknown) => e);
    await calledPromise;
    controller.abort("stop now");
    expect(await Promise.race([settled, nextTurn()])).toBe("stop now");
    expect(providerSignal?.aborted).toBe(true);
  });

  it("mid-stream: stops reading the provider's stream; the provider sees the abort and closes", async () => {
    let closed = false;
    let streaming!: () => void;
    const started = new Promise<void>((resolve) => (streaming = resolve));
    const provider = defineProvider({
      name: "slow",
      model: "m",
      stream: async function* (_request, { signal }) {
        try {
          yield { type: "text-delta", text: "a" };
          streaming();
          await new Promise((_, reject) =>
            signal?.addEventListener("abort", () => reject(signal.reason)),
          );
        } finally {
          closed = true;
        }
      },
    });
    const controller = new AbortController();
    const settled = new AgentLoop({ provider })
      .run("go", { signal: controller.signal })
      .catch((e: unknown) => e);
    await started;
    controller.abort("enough");
    expect(await Promise.race([settled, nextTurn()])).toBe("enough");
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(closed).toBe(true);
  });

  it("the loop's signal aborts its runs", async () => {
    const { hang, state } = hangingTool();
    const controller = new AbortController();
    const loop = new AgentLoop({
      provider: scriptedProvider([{ toolCalls: [{ name: "hang" }] }]),
      tools: [hang],
      signal: controller.signal,
    });
    const settled = loop.run("go").catch((e: unknown) => e);
    await state.started;
    controller.abort("loop closed");
    expect(await Promise.race([settled, nextTurn()])).toBe("loop closed");
  });

  it("an already aborted signal rejects before the model is called", async () => {
    const provider = scriptedProvider([{ text: "never" }]);
    await expect(
      new AgentLoop({ provider }).run("go", { signal: AbortSignal.abort("early") }),
    ).rejects.toBe("early");
    expect(provider.requests).toEqual([]);
  });

  it("stopping a stream early aborts the tools it left running", async () => {
    const { hang, state } = hangingTool();
    const loop = new AgentLoop({
      provider: scriptedProvider([{ toolCalls: [{ name: "hang" }, { name: "quick" }] }]),
      tools: [hang, tool({ name: "quick", input: z.object({}), execute: () => "quick" })],
    });
    for await (const event of loop.stream("go")) {
      if (event.type === "tool-result") break;
    }
    expect(state.signal?.aborted).toBe(true);
    expect(state.signal?.reason).toMatchObject({ name: "AbortError" });
  });

  it("a tool's timeout aborts its signal with a timeout reason, not the run's", async () => {
    let seen: AbortSignal | undefined;
    const slow = tool({
      name: "slow",
      input: z.object({}),
      timeoutMs: 10,
      execute: (_args, ctx) => {
        seen = ctx.signal;
        return new Promise(() => {});
      },
    });
    const result = await new AgentLoop({
      provider: scriptedProvider([{ toolCalls: [{ name: "slow" }] }, { text: "ok" }]),
      tools: [slow],
    }).run("go");
    expect(result.status).toBe("completed");
    expect(seen?.aborted).toBe(true);
    expect(String(seen?.reason)).toMatch(/timed out after 10 ms/);
  });
});
