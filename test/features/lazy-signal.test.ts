import {
  AgentLoop,
  type Provider,
  type ProviderCallOptions,
  type ToolContext,
  tool,
} from "tollgate";
import { functionProvider, scriptedProvider } from "tollgate/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";

/**
 * The run's AbortSignal is made when user code first reads it (a tool's `ctx.signal`, a
 * provider's `options.signal`), not before: the test counts the controllers made while a run
 * goes, by a counting AbortController put in the global's place.
 */
let made = 0;
const RealController = globalThis.AbortController;
class CountingController extends RealController {
  constructor() {
    super();
    made++;
  }
}
beforeEach(() => {
  made = 0;
  globalThis.AbortController = CountingController;
});
afterEach(() => {
  globalThis.AbortController = RealController;
});

const oneCall = () =>
  scriptedProvider([{ toolCalls: [{ name: "echo", args: { x: 1 } }] }, { text: "done" }]);

function echo(read?: (ctx: ToolContext<unknown>) => void) {
  return tool({
    name: "echo",
    input: z.object({ x: z.number() }),
    execute: (args, ctx) => {
      read?.(ctx);
      return args.x;
    },
  });
}

describe("the run's signal, made when first read", () => {
  it("a run whose tool and provider never read it makes none", async () => {
    const loop = new AgentLoop({ provider: oneCall(), tools: [echo()] });
    const result = await loop.run("go");
    expect(result.status).toBe("completed");
    expect(made).toBe(0);
  });

  it("a tool that reads ctx.signal gets a live AbortSignal; one is made for the whole run", async () => {
    const seen: AbortSignal[] = [];
    const provider = scriptedProvider([
      { toolCalls: [{ name: "echo", args: { x: 1 } }] },
      { toolCalls: [{ name: "echo", args: { x: 2 } }] },
      { text: "done" },
    ]);
    const loop = new AgentLoop({ provider, tools: [echo((ctx) => seen.push(ctx.signal))] });
    expect((await loop.run("go")).status).toBe("completed");
    expect(seen).toHaveLength(2);
    expect(seen[0]).toBeInstanceOf(AbortSignal);
    expect(seen[0]!.aborted).toBe(false);
    expect(seen[1]).toBe(seen[0]);
    expect(made).toBe(1);
  });

  it("a spread of the tool context carries the signal, and lists it among its keys", async () => {
    let copy: ToolContext<unknown> | undefined;
    let original: AbortSignal | undefined;
    const loop = new AgentLoop({
      provider: oneCall(),
      tools: [
        echo((ctx) => {
          copy = { ...ctx };
          original = ctx.signal;
          expect(Object.keys(ctx)).toContain("signal");
        }),
      ],
    });
    await loop.run("go");
    expect(copy!.signal).toBeInstanceOf(AbortSignal);
    expect(copy!.signal).toBe(original);
    expect(Object.getOwnPropertyDescriptor(copy, "signal")?.value).toBe(original);
  });

  it("assigning ctx.signal replaces it, as a plain property would", async () => {
    const mine = new RealController().signal;
    let after: AbortSignal | undefined;
    const loop = new AgentLoop({
      provider: oneCall(),
      tools: [
        echo((ctx) => {
          (ctx as { signal: AbortSignal }).signal = mine;
          after = ctx.signal;
        }),
      ],
    });
    expect((await loop.run("go")).status).toBe("completed");
    expect(after).toBe(mine);
    expect(made).toBe(0);
  });

  it("a signal first read after the run aborted is already aborted, with the run's reason", async () => {
    let context: ToolContext<unknown> | undefined;
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    const hang = tool({
      name: "echo",
      input: z.object({ x: z.number() }),
      execute: (_args, ctx) => {
        context = ctx;
        started();
        return new Promise(() => {});
      },
    });
    const controller = new RealController();
    const loop = new AgentLoop({ provider: oneCall(), tools: [hang] });
    const settled = loop.run("go", { signal: controller.signal }).catch((error: unknown) => error);
    await running;
    const reason = new Error("stop now");
    controller.abort(reason);
    expect(await settled).toBe(reason);
    expect(made).toBe(0);
    expect(context!.signal.aborted).toBe(true);
    expect(context!.signal.reason).toBe(reason);
  });

  it("a provider's options: the signal is the one the tools get, and a spread keeps it", async () => {
    const given: ProviderCallOptions[] = [];
    const spreads: ProviderCallOptions[] = [];
    let toolSignal: AbortSignal | undefined;
    let calls = 0;
    const usage = { inputTokens: 1, outputTokens: 1, totalTokens: 2 };
    const provider: Provider = {
      name: "reader",
      model: "m",
      generate: async (_request, options) => {
        given.push(options);
        spreads.push({ ...options });
        calls++;
        return calls === 1
          ? {
              parts: [{ type: "tool-call", id: "c1", name: "echo", args: '{"x":1}' }],
              finishReason: "tool-calls",
              usage,
            }
          : { parts: [{ type: "text", text: "done" }], finishReason: "stop", usage };
      },
    };
    const loop = new AgentLoop({ provider, tools: [echo((ctx) => (toolSignal = ctx.signal))] });
    expect((await loop.run("go")).status).toBe("completed");
    expect(made).toBe(1);
    expect(given[0]!.signal).toBeInstanceOf(AbortSignal);
    expect(spreads[0]!.signal).toBe(given[0]!.signal);
    expect(given[1]!.signal).toBe(given[0]!.signal);
    expect(toolSignal).toBe(given[0]!.signal);
    expect(Object.keys(given[0]!).sort()).toEqual(["runId", "signal", "step"]);
  });

  it("functionProvider's call.signal is the run's signal, made only when the answer reads it", async () => {
    const read: (AbortSignal | undefined)[] = [];
    let toolSignal: AbortSignal | undefined;
    const provider = functionProvider((request, info) => {
      read.push(info.signal);
      return request.messages.length > 1
        ? { text: "done" }
        : { toolCalls: [{ name: "echo", args: { x: 1 } }] };
    });
    const loop = new AgentLoop({ provider, tools: [echo((ctx) => (toolSignal = ctx.signal))] });
    expect((await loop.run("go")).status).toBe("completed");
    expect(read[0]).toBeInstanceOf(AbortSignal);
    expect(read[1]).toBe(read[0]);
    expect(toolSignal).toBe(read[0]);
    expect(made).toBe(1);
  });

  it("a policy's executeTool gets the tool context's signal, made when it reads either", async () => {
    let fromArgs: AbortSignal | undefined;
    let fromCtx: AbortSignal | undefined;
    const loop = new AgentLoop({
      provider: oneCall(),
      tools: [echo()],
      policy: {
        executeTool: async ({ tool: run, args, signal, ctx }) => {
          fromArgs = signal;
          fromCtx = ctx.signal;
          return run.execute(args as never, ctx);
        },
      },
    });
    expect((await loop.run("go")).status).toBe("completed");
    expect(fromArgs).toBeInstanceOf(AbortSignal);
    expect(fromCtx).toBe(fromArgs);
    expect(made).toBe(1);
  });

  it("a tool with a timeout gets its own signal, which follows the run's", async () => {
    let signal: AbortSignal | undefined;
    const timed = tool({
      name: "echo",
      input: z.object({ x: z.number() }),
      timeoutMs: 1_000,
      execute: (args, ctx) => {
        signal = ctx.signal;
        return args.x;
      },
    });
    const loop = new AgentLoop({ provider: oneCall(), tools: [timed] });
    expect((await loop.run("go")).status).toBe("completed");
    expect(signal).toBeInstanceOf(AbortSignal);
    expect(signal!.aborted).toBe(false);
  });
  it("what a tool's context keeps of the run only reads: nothing in it can abort the run or detach it", async () => {
    const held: unknown[] = [];
    const controller = new RealController();
    const loop = new AgentLoop({
      provider: oneCall(),
      tools: [
        echo((ctx) => {
          // The key the loop keeps the signal's source under (lazy-signal.ts).
          const key = Symbol.for("tollgate.signalFrom");
          expect(Object.getOwnPropertySymbols(ctx)).toContain(key);
          held.push((ctx as unknown as Record<symbol, unknown>)[key]);
        }),
      ],
    });
    expect((await loop.run("go", { signal: controller.signal })).status).toBe("completed");
    expect(held.length).toBeGreaterThan(0);
    for (const value of held) {
      const names = new Set<string>();
      for (
        let o = value as object | null;
        o && o !== Object.prototype;
        o = Object.getPrototypeOf(o)
      ) {
        for (const name of Object.getOwnPropertyNames(o))
          if (name !== "constructor") names.add(name);
      }
      expect([...names].sort()).toEqual(["aborted", "reason", "signal", "throwIfAborted"]);
    }
  });
});
