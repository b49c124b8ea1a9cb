import { beforeEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";

/**
 * The reader of a streamed final answer (`output-delta` events, the partial JSON parser) loads
 * on a run's first model call with `output`, in each process. Each test here gets fresh modules
 * (`vi.resetModules()`), so each meets that first call: the answer streams on it, and a run
 * aborted while the reader loads sends nothing to the model.
 */
let tollgate: typeof import("tollgate");
let testing: typeof import("tollgate/testing");

beforeEach(async () => {
  vi.resetModules();
  tollgate = await import("tollgate");
  testing = await import("tollgate/testing");
});

const City = z.object({ city: z.string(), celsius: z.number() });
const oslo = { city: "Oslo", celsius: 21 };

const nativeProvider = () =>
  testing.scriptedProvider([{ text: JSON.stringify(oslo) }], {
    stream: true,
    chunkSize: 4,
    supportsNativeOutput: true,
  });

/** Runs `loop` with a signal aborted at once, and waits until the load has settled. */
async function abortedAtOnce(loop: InstanceType<typeof tollgate.AgentLoop>) {
  const controller = new AbortController();
  const running = loop.run("?", { signal: controller.signal });
  const reason = new Error("user left");
  controller.abort(reason);
  await expect(running).rejects.toBe(reason);
  await new Promise((resolve) => setTimeout(resolve, 50)); // the load has settled by now
}

describe("structured output on the first run of a process", () => {
  it("streams partial answers and completes with the whole one", async () => {
    const events: import("tollgate").LoopEvent[] = [];
    const loop = new tollgate.AgentLoop({ provider: nativeProvider(), output: City });
    for await (const event of loop.stream("?")) events.push(event);
    const partials = events.flatMap((event) =>
      event.type === "output-delta" ? [event.output] : [],
    );
    expect(partials).toContainEqual({ city: "Oslo" });
    expect(partials.at(-1)).toEqual(oslo);
    const finish = events.at(-1)!;
    expect(finish.type === "run-finish" && finish.result.output).toEqual(oslo);
  });

  it("a run aborted while the reader loads sends nothing to the model", async () => {
    const provider = nativeProvider();
    await abortedAtOnce(new tollgate.AgentLoop({ provider, output: City }));
    expect(provider.requests).toEqual([]);
  });
});
