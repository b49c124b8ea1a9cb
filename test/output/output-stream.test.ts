import { AgentLoop, type LoopEvent } from "tollgate";
import { scriptedProvider } from "tollgate/testing";
import { describe, expect, it } from "vitest";
import { z } from "zod";

/**
 * The reader of a streamed final answer loads on a run's first model call with `output`. This
 * file is a fresh module graph (vitest isolates files): its first run is the one that loads it.
 * The order of the tests matters here.
 */
const City = z.object({ city: z.string(), celsius: z.number() });
const oslo = { city: "Oslo", celsius: 21 };

const nativeProvider = () =>
  scriptedProvider([{ text: JSON.stringify(oslo) }], {
    stream: true,
    chunkSize: 4,
    supportsNativeOutput: true,
  });

describe("structured output on the run that loads its stream reader", () => {
  it("a run aborted while the reader loads rejects with the abort's reason and sends nothing", async () => {
    const provider = nativeProvider();
    const controller = new AbortController();
    const running = new AgentLoop({ provider, output: City }).run("?", {
      signal: controller.signal,
    });
    const reason = new Error("user left");
    controller.abort(reason);
    await expect(running).rejects.toBe(reason);
    // The run rejects at once; nothing may reach the provider after, once the reader loaded.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(provider.requests).toEqual([]);
  });

  it("the next run streams partial answers and completes with the whole one", async () => {
    const events: LoopEvent[] = [];
    for await (const event of new AgentLoop({ provider: nativeProvider(), output: City }).stream(
      "?",
    )) {
      events.push(event);
    }
    const partials = events.flatMap((event) =>
      event.type === "output-delta" ? [event.output] : [],
    );
    expect(partials).toContainEqual({ city: "Oslo" });
    expect(partials.at(-1)).toEqual(oslo);
    const finish = events.at(-1)!;
    expect(finish.type === "run-finish" && finish.result.output).toEqual(oslo);
  });
});
