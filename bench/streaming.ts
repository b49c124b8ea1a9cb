/**
 * Measurement 2: the cost of one streamed text delta from the model to the consumer. The fake
 * model streams `deltas` text deltas (then a finish); each contender's consumer counts the
 * deltas it receives and checks it got all of them.
 */
import { streamText } from "ai";
import { convertArrayToReadableStream, MockLanguageModelV4 } from "ai/test";
import { AgentLoop, type ModelStreamPart, type Provider } from "tollgate";
import { type Contender, expectEqual } from "./harness.js";

const TOKEN = "tok ";
const usage = { inputTokens: 1, outputTokens: 1, totalTokens: 2 };

/** A provider whose `stream` is an async generator over `deltas` text deltas of `TOKEN`, then a finish. */
export function streamingProvider(deltas: number): Provider {
  const parts: ModelStreamPart[] = Array.from({ length: deltas }, () => ({
    type: "text-delta" as const,
    text: TOKEN,
  }));
  parts.push({ type: "finish", finishReason: "stop", usage });
  return {
    name: "bench",
    model: "bench",
    generate: () => Promise.reject(new Error("the loop should stream")),
    async *stream() {
      yield* parts;
    },
  };
}

/** tollgate: `streamingProvider`, read through `loop.stream()`. */
export function tollgateStream(deltas: number): Contender {
  const name = "tollgate loop.stream()";
  const loop = new AgentLoop({ provider: streamingProvider(deltas) });
  return {
    name,
    units: deltas,
    async run() {
      let received = 0;
      let text = "";
      for await (const event of loop.stream("Tell me a story.")) {
        if (event.type === "text-delta") received++;
        else if (event.type === "run-finish") text = event.result.text;
      }
      expectEqual(`${name}: deltas`, received, deltas);
      expectEqual(`${name}: text length`, text.length, deltas * TOKEN.length);
    },
  };
}

/** The AI SDK model's stream parts for `deltas` text deltas of `TOKEN`. */
export function aiSdkParts(deltas: number) {
  return [
    { type: "stream-start" as const, warnings: [] },
    { type: "text-start" as const, id: "t" },
    ...Array.from({ length: deltas }, () => ({
      type: "text-delta" as const,
      id: "t",
      delta: TOKEN,
    })),
    { type: "text-end" as const, id: "t" },
    {
      type: "finish" as const,
      finishReason: { unified: "stop" as const, raw: undefined },
      usage: {
        inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
        outputTokens: { total: 1, text: 1, reasoning: undefined },
      },
    },
  ];
}

/** `streamText` over a new `MockLanguageModelV4` that streams `parts`; an error fails the run. */
export function aiSdkStreamText(parts: ReturnType<typeof aiSdkParts>) {
  const model = new MockLanguageModelV4({
    doStream: async () => ({ stream: convertArrayToReadableStream(parts) }),
  });
  return streamText({
    model,
    prompt: "Tell me a story.",
    onError: ({ error }) => {
      throw error;
    },
  });
}

/** AI SDK 7: `streamText` over `MockLanguageModelV4`, read through `textStream` or `fullStream`. */
export function aiSdkStream(deltas: number, read: "textStream" | "fullStream"): Contender {
  const name = `AI SDK 7 streamText .${read}`;
  const parts = aiSdkParts(deltas);
  return {
    name,
    units: deltas,
    async run() {
      const result = aiSdkStreamText(parts);
      let received = 0;
      if (read === "textStream") {
        for await (const _text of result.textStream) received++;
      } else {
        for await (const part of result.fullStream) if (part.type === "text-delta") received++;
      }
      expectEqual(`${name}: deltas`, received, deltas);
      expectEqual(`${name}: text length`, (await result.text).length, deltas * TOKEN.length);
    },
  };
}

/** The floor: an async generator handing the same parts over to a `for await` consumer. */
export function floorStream(deltas: number): Contender {
  const name = "floor (async generator)";
  const parts: ModelStreamPart[] = Array.from({ length: deltas }, () => ({
    type: "text-delta" as const,
    text: TOKEN,
  }));
  parts.push({ type: "finish", finishReason: "stop", usage });
  async function* model() {
    yield* parts;
  }
  return {
    name,
    units: deltas,
    async run() {
      let received = 0;
      for await (const part of model()) if (part.type === "text-delta") received++;
      expectEqual(`${name}: deltas`, received, deltas);
    },
  };
}

/** Every contender of measurement 2, tollgate first. */
export function streamContenders(deltas: number): Contender[] {
  return [
    tollgateStream(deltas),
    floorStream(deltas),
    aiSdkStream(deltas, "textStream"),
    aiSdkStream(deltas, "fullStream"),
  ];
}
