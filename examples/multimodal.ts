/**
 * Multimodal input: a user message with text, a PDF and an image, and a tool that answers with
 * a screenshot. A stand-in model says what it was shown; swap in `anthropic(...)` (or any
 * adapter) and the rest stays the same.
 *
 *   npx tsx examples/multimodal.ts
 */
import { pathToFileURL } from "node:url";
import type { Message, Provider } from "tollgate";
import { AgentLoop, tool, toolContent } from "tollgate";
import { functionProvider } from "tollgate/testing";
import { z } from "zod";

// Stand-ins for real bytes (a browser's screenshot, `await readFile("invoice.pdf")`).
const PIXEL =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";
const render = async (_page: string) => Uint8Array.from(atob(PIXEL), (c) => c.charCodeAt(0));
const invoicePdf = () => new TextEncoder().encode("%PDF-1.4\n% an invoice\n%%EOF\n");

export async function main(provider: Provider): Promise<Message[]> {
  const screenshot = tool({
    name: "screenshot",
    description: "A screenshot of a page of our shop",
    input: z.object({ page: z.string() }),
    execute: async ({ page }) =>
      toolContent([
        { type: "text", text: `The ${page} page` },
        { type: "image", image: await render(page) }, // PNG bytes
      ]),
  });

  const loop = new AgentLoop({
    provider, // e.g. anthropic({ model: "claude-sonnet-4-5" }) from "tollgate/anthropic"
    tools: [screenshot],
  });

  const result = await loop.run([
    {
      role: "user",
      content: [
        { type: "text", text: "Does this invoice match what the checkout page shows?" },
        {
          type: "file",
          data: invoicePdf(),
          mediaType: "application/pdf",
          filename: "invoice.pdf",
        },
        { type: "image", image: "https://example.com/logo.png" },
      ],
    },
  ]);
  console.log(result.text);

  // The state is JSON: bytes are kept as base64 data URLs, so it survives a round trip.
  const state = JSON.stringify(result.state);
  console.log(`state: ${state.length} bytes of JSON, ${state.split("data:").length - 1} data URLs`);
  return result.messages;
}

/** What a model was shown in a request: its parts, by kind. */
function shown(request: Parameters<Provider["generate"]>[0]): string {
  const kinds: string[] = [];
  for (const message of request.messages) {
    if (message.role === "user" && typeof message.content !== "string") {
      for (const part of message.content) {
        kinds.push(part.type === "text" ? "text" : `${part.type} (${part.mediaType ?? "a URL"})`);
      }
    }
    if (message.role === "tool") {
      for (const result of message.results) {
        for (const part of result.content ?? []) kinds.push(`${result.toolName} ${part.type}`);
      }
    }
  }
  return kinds.join(", ");
}

/** A stand-in for a vision model: asks for a screenshot, then says what it saw. */
const standIn: Provider = functionProvider((request, { step }) =>
  step === 0
    ? { toolCalls: [{ name: "screenshot", args: { page: "checkout" } }] }
    : { text: `I was shown: ${shown(request)}.` },
);

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await main(standIn);
