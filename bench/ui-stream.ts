/**
 * Measurement 11: a chat page's stream — one streamed text delta from the model to the bytes of
 * the AI SDK's UI message stream, as a route handler sends them to `useChat`. The fake model
 * streams `deltas` text deltas; each contender's Response body is read to its end and its
 * `text-delta` chunks counted. tollgate: `toUIMessageStreamResponse(loop.stream(...))`; AI SDK:
 * `streamText(...).toUIMessageStreamResponse()` over `MockLanguageModelV4`.
 */
import { AgentLoop } from "tollgate";
import { toUIMessageStreamResponse } from "tollgate/ui";
import { type Contender, expectEqual } from "./harness.js";
import { aiSdkParts, aiSdkStreamText, streamingProvider } from "./streaming.js";

const decoder = new TextDecoder();

/** Reads a UI message stream Response to its end; returns its text-delta chunks and bytes. */
async function readChunks(response: Response): Promise<{ deltas: number; bytes: number }> {
  let deltas = 0;
  let bytes = 0;
  let rest = "";
  for await (const piece of response.body as unknown as AsyncIterable<Uint8Array>) {
    bytes += piece.byteLength;
    const text = rest + decoder.decode(piece, { stream: true });
    const lines = text.split("\n\n");
    rest = lines.pop()!;
    for (const line of lines) if (line.startsWith('data: {"type":"text-delta"')) deltas++;
  }
  return { deltas, bytes };
}

/** tollgate: the run's events as the UI message stream, read as bytes. */
export function tollgateUIStream(deltas: number): Contender {
  const name = "tollgate toUIMessageStreamResponse";
  const loop = new AgentLoop({ provider: streamingProvider(deltas) });
  return {
    name,
    units: deltas,
    async run() {
      const { deltas: received } = await readChunks(
        toUIMessageStreamResponse(loop.stream("Tell me a story."), { messageId: "m" }),
      );
      expectEqual(`${name}: deltas`, received, deltas);
    },
  };
}

/** AI SDK 7: `streamText` over `MockLanguageModelV4`, as `toUIMessageStreamResponse()`, read as bytes. */
export function aiSdkUIStream(deltas: number): Contender {
  const name = "AI SDK 7 toUIMessageStreamResponse";
  const parts = aiSdkParts(deltas);
  return {
    name,
    units: deltas,
    async run() {
      const result = aiSdkStreamText(parts);
      const { deltas: received } = await readChunks(result.toUIMessageStreamResponse());
      expectEqual(`${name}: deltas`, received, deltas);
    },
  };
}

/** Every contender of measurement 11, tollgate first. */
export function uiStreamContenders(deltas: number): Contender[] {
  return [tollgateUIStream(deltas), aiSdkUIStream(deltas)];
}
