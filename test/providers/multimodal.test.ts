import {
  AgentLoop,
  type Message,
  type Provider,
  ProviderError,
  type ToolContentPart,
  tool,
  toolContent,
} from "tollgate";
import { anthropic } from "tollgate/anthropic";
import { gemini } from "tollgate/gemini";
import { openAIChat, openAIResponses } from "tollgate/openai";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import type { ModelRequest } from "../../src/types/provider.js";
import { type ReplayServer, startReplayServer } from "../support/replay-server.js";
import {
  chunkLines,
  chunksToSSE,
  jsonAnswer,
  recording,
  runStream,
  sse,
  textOf,
} from "./support/recordings.js";

/**
 * Each adapter maps image and file parts to its provider's documented request shape: the
 * request a real HTTP server on 127.0.0.1 receives is checked JSON for JSON, answered by a real
 * recorded response. Parts a provider cannot carry are a ProviderError before any request.
 */

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
const PNG_B64 = "iVBORw0KGgoAAAAN";
const PNG_URL = `data:image/png;base64,${PNG_B64}`;
const PDF_B64 = Buffer.from("%PDF-1.7 tiny").toString("base64");
const PDF_URL = `data:application/pdf;base64,${PDF_B64}`;
const CAT = "https://example.com/cat.jpg";
const TOOL_CALL = {
  type: "tool-call" as const,
  id: "c1",
  name: "screenshot",
  args: '{"page":"home"}',
};

const userParts: Message = {
  role: "user",
  content: [
    { type: "text", text: "What is in these?" },
    { type: "image", image: PNG },
    { type: "image", image: CAT, mediaType: "image/jpeg" },
    { type: "file", data: PDF_URL, mediaType: "application/pdf", filename: "report.pdf" },
  ],
};

const toolResults = (content: ToolContentPart[]): Message => ({
  role: "tool",
  results: [
    {
      toolCallId: "c1",
      toolName: "screenshot",
      output: "the home page",
      isError: false,
      content,
    },
  ],
});

const screenshotContent = [
  { type: "text" as const, text: "the home page" },
  { type: "image" as const, image: PNG_URL, mediaType: "image/png" },
];

/** A request with user parts, a tool call, and its result (text only, or with a screenshot). */
const request = (withImageResult: boolean, messages: Message[] = []): ModelRequest => ({
  messages: [
    userParts,
    { role: "assistant", parts: [TOOL_CALL] },
    toolResults(withImageResult ? screenshotContent : [{ type: "text", text: "the home page" }]),
    ...messages,
  ],
  tools: [],
});

let server: ReplayServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const answers = {
  chat: () => jsonAnswer(recording("openai-chat/openai-text.json")),
  responses: () =>
    jsonAnswer(recording("openai-responses/openai-reasoning-encrypted-content.1.json")),
  anthropic: () => jsonAnswer(recording("anthropic/anthropic-text.json")),
  gemini: () => jsonAnswer(recording("google/google-text.json")),
};
type Adapter = keyof typeof answers;

async function serve(adapter: Adapter): Promise<Provider> {
  server = await startReplayServer(() => answers[adapter]());
  const { url } = server;
  const apiKey = "sk-test-key-0000000000";
  switch (adapter) {
    case "chat":
      return openAIChat({ model: "gpt-4o", baseURL: `${url}/v1`, apiKey });
    case "responses":
      return openAIResponses({ model: "gpt-5-mini", baseURL: `${url}/v1`, apiKey });
    case "anthropic":
      return anthropic({ model: "claude-sonnet-4-5", baseURL: `${url}/v1`, apiKey });
    case "gemini":
      return gemini({ model: "gemini-3-pro-preview", baseURL: `${url}/v1beta`, apiKey });
  }
}

/** The body the server received for the one request sent. */
const sentBody = () => {
  expect(server!.requests).toHaveLength(1);
  return server!.requests[0]!.json();
};

describe("OpenAI Chat Completions", () => {
  it("sends text, image_url (a data URL for bytes) and a PDF as file_data; tool text as the tool message", async () => {
    const provider = await serve("chat");
    const response = await provider.generate(request(false), {});
    expect(textOf(response)).toMatch(/\S/);
    expect(sentBody().messages).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "What is in these?" },
          { type: "image_url", image_url: { url: PNG_URL } },
          { type: "image_url", image_url: { url: CAT } },
          { type: "file", file: { filename: "report.pdf", file_data: PDF_URL } },
        ],
      },
      {
        role: "assistant",
        content: null,
        tool_calls: [
          {
            id: "c1",
            type: "function",
            function: { name: "screenshot", arguments: '{"page":"home"}' },
          },
        ],
      },
      { role: "tool", tool_call_id: "c1", content: "the home page" },
    ]);
  });

  it("a PDF without a filename is sent as document.pdf; a text-only user message stays a string", async () => {
    const provider = await serve("chat");
    await provider.generate(
      {
        messages: [
          { role: "user", content: "hi" },
          {
            role: "user",
            content: [{ type: "file", data: PDF_URL, mediaType: "application/pdf" }],
          },
        ],
        tools: [],
      },
      {},
    );
    expect(sentBody().messages).toEqual([
      { role: "user", content: "hi" },
      {
        role: "user",
        content: [{ type: "file", file: { filename: "document.pdf", file_data: PDF_URL } }],
      },
    ]);
  });
});

describe("OpenAI Responses", () => {
  it("sends input_text, input_image (detail auto), input_file, and a tool's image as function_call_output content", async () => {
    const provider = await serve("responses");
    const pdfByUrl: Message = {
      role: "user",
      content: [{ type: "file", data: "https://example.com/a.pdf", mediaType: "application/pdf" }],
    };
    const csv: Message = {
      role: "user",
      content: [
        { type: "file", data: new TextEncoder().encode("a,b\n1,2"), mediaType: "text/csv" },
      ],
    };
    const response = await provider.generate(request(true, [pdfByUrl, csv]), {});
    expect(textOf(response)).toMatch(/\S/);
    expect(sentBody().input).toEqual([
      {
        role: "user",
        content: [
          { type: "input_text", text: "What is in these?" },
          { type: "input_image", image_url: PNG_URL, detail: "auto" },
          { type: "input_image", image_url: CAT, detail: "auto" },
          { type: "input_file", filename: "report.pdf", file_data: PDF_URL },
        ],
      },
      { type: "function_call", call_id: "c1", name: "screenshot", arguments: '{"page":"home"}' },
      {
        type: "function_call_output",
        call_id: "c1",
        output: [
          { type: "input_text", text: "the home page" },
          { type: "input_image", image_url: PNG_URL, detail: "auto" },
        ],
      },
      { role: "user", content: [{ type: "input_file", file_url: "https://example.com/a.pdf" }] },
      {
        role: "user",
        content: [
          {
            type: "input_file",
            filename: "file.csv",
            file_data: `data:text/csv;base64,${Buffer.from("a,b\n1,2").toString("base64")}`,
          },
        ],
      },
    ]);
  });
});

describe("Anthropic Messages", () => {
  it("sends image blocks (base64 and url sources), a PDF document titled by its filename, and tool_result content blocks", async () => {
    const provider = await serve("anthropic");
    const notes: Message = {
      role: "user",
      content: [
        {
          type: "file",
          data: new TextEncoder().encode("plain notes ✓"),
          mediaType: "text/plain",
        },
        { type: "file", data: "https://example.com/a.pdf", mediaType: "application/pdf" },
      ],
    };
    const response = await provider.generate(request(true, [notes]), {});
    expect(textOf(response)).toMatch(/Hello/);
    expect(sentBody().messages).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "What is in these?" },
          { type: "image", source: { type: "base64", media_type: "image/png", data: PNG_B64 } },
          { type: "image", source: { type: "url", url: CAT } },
          {
            type: "document",
            source: { type: "base64", media_type: "application/pdf", data: PDF_B64 },
            title: "report.pdf",
          },
        ],
      },
      {
        role: "assistant",
        content: [{ type: "tool_use", id: "c1", name: "screenshot", input: { page: "home" } }],
      },
      {
        role: "user",
        content: [
          {
            type: "tool_result",
            tool_use_id: "c1",
            content: [
              { type: "text", text: "the home page" },
              { type: "image", source: { type: "base64", media_type: "image/png", data: PNG_B64 } },
            ],
          },
          {
            type: "document",
            source: { type: "text", media_type: "text/plain", data: "plain notes ✓" },
          },
          { type: "document", source: { type: "url", url: "https://example.com/a.pdf" } },
        ],
      },
    ]);
  });
});

describe("Gemini", () => {
  it("sends inlineData for bytes, fileData for URLs, and a tool's image inside its functionResponse parts", async () => {
    const provider = await serve("gemini");
    const response = await provider.generate(request(true), {});
    expect(textOf(response)).toMatch(/strawberry/);
    expect(sentBody().contents).toEqual([
      {
        role: "user",
        parts: [
          { text: "What is in these?" },
          { inlineData: { mimeType: "image/png", data: PNG_B64 } },
          { fileData: { mimeType: "image/jpeg", fileUri: CAT } },
          { inlineData: { mimeType: "application/pdf", data: PDF_B64 } },
        ],
      },
      {
        role: "model",
        parts: [{ functionCall: { id: "c1", name: "screenshot", args: { page: "home" } } }],
      },
      {
        role: "user",
        parts: [
          {
            functionResponse: {
              id: "c1",
              name: "screenshot",
              response: { output: "the home page" },
              parts: [{ inlineData: { mimeType: "image/png", data: PNG_B64 } }],
            },
          },
        ],
      },
    ]);
  });
});

/** Requests each adapter cannot carry, and what its error says. */
const refused: Array<[Adapter, string, ModelRequest, RegExp]> = [
  [
    "chat",
    "a tool's image",
    request(true),
    /openai cannot carry an image in a tool result \(tool screenshot\)/,
  ],
  [
    "chat",
    "a file by URL",
    {
      messages: [
        {
          role: "user",
          content: [{ type: "file", data: "https://x.test/a.pdf", mediaType: "application/pdf" }],
        },
      ],
      tools: [],
    },
    /cannot carry a file by URL in Chat Completions/,
  ],
  [
    "chat",
    "a text file",
    {
      messages: [
        {
          role: "user",
          content: [{ type: "file", data: "data:text/plain;base64,aGk=", mediaType: "text/plain" }],
        },
      ],
      tools: [],
    },
    /cannot carry a text\/plain file in Chat Completions \(PDF only\)/,
  ],
  [
    "responses",
    "a zip without a filename",
    {
      messages: [
        {
          role: "user",
          content: [
            {
              type: "file",
              data: "data:application/zip;base64,UEs=",
              mediaType: "application/zip",
            },
          ],
        },
      ],
      tools: [],
    },
    /cannot carry a application\/zip file without a filename.*give the file part a filename/,
  ],
  [
    "anthropic",
    "a BMP image",
    {
      messages: [
        { role: "user", content: [{ type: "image", image: "data:image/bmp;base64,Qk0=" }] },
      ],
      tools: [],
    },
    /anthropic cannot carry a image\/bmp image \(it takes JPEG, PNG, GIF and WebP\)/,
  ],
  [
    "anthropic",
    "a text file by URL",
    {
      messages: [
        {
          role: "user",
          content: [{ type: "file", data: "https://x.test/a.txt", mediaType: "text/plain" }],
        },
      ],
      tools: [],
    },
    /cannot carry a text\/plain file by URL/,
  ],
  [
    "gemini",
    "an image URL without its type",
    { messages: [{ role: "user", content: [{ type: "image", image: CAT }] }], tools: [] },
    /gemini cannot carry an image URL without its type.*give the part a mediaType/,
  ],
  [
    "gemini",
    "a tool's image by URL",
    {
      messages: [
        { role: "user", content: "look" },
        { role: "assistant", parts: [TOOL_CALL] },
        toolResults([{ type: "image", image: CAT, mediaType: "image/jpeg" }]),
      ],
      tools: [],
    },
    /cannot carry an image by URL in a tool result \(tool screenshot\)/,
  ],
  [
    "anthropic",
    "an unreadable image given to the adapter directly",
    { messages: [{ role: "user", content: [{ type: "image", image: "cat.png" }] }], tools: [] },
    /anthropic was given an image part it cannot read: "cat.png" is not a URL/,
  ],
];

describe.each(refused)(
  "%s refuses %s before sending anything",
  (adapter, _what, refusedRequest, message) => {
    it("generate rejects with a ProviderError", async () => {
      const provider = await serve(adapter);
      const error = await provider.generate(refusedRequest, {}).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ProviderError);
      expect((error as ProviderError).message).toMatch(message);
      expect((error as ProviderError).retryable).toBe(false);
      expect(server!.requests).toHaveLength(0);
    });

    it("stream fails on its first read with the same error", async () => {
      const provider = await serve(adapter);
      const stream = provider.stream!(refusedRequest, {});
      const { error, deltas } = await runStream(
        { ...provider, stream: () => stream },
        refusedRequest,
      );
      expect(error).toBeInstanceOf(ProviderError);
      expect((error as ProviderError).message).toMatch(message);
      expect(deltas).toEqual([]);
      expect(server!.requests).toHaveLength(0);
    });
  },
);

describe("a loop run with image input, over a real adapter", () => {
  it("bytes given to run() reach Anthropic as a base64 image block; a tool's screenshot as tool_result content", async () => {
    const toolUse = chunkLines("anthropic/anthropic-tool-no-args.chunks.txt");
    const text = chunkLines("anthropic/anthropic-text.chunks.txt");
    server = await startReplayServer((_req, index) =>
      sse(chunksToSSE(index === 0 ? toolUse : text, "typed-events"), { split: "whole" }),
    );
    const name = toolUse.find((e) => e.content_block?.type === "tool_use").content_block.name;
    const screenshot = tool({
      name,
      input: z.object({}),
      execute: () => toolContent([{ type: "image", image: PNG }]),
    });
    const loop = new AgentLoop({
      provider: anthropic({
        model: "claude-sonnet-4-5",
        baseURL: `${server.url}/v1`,
        apiKey: "sk-ant-test-0000000000",
      }),
      tools: [screenshot],
    });
    const result = await loop.run([
      {
        role: "user",
        content: [
          { type: "text", text: "what time is it?" },
          { type: "image", image: PNG },
        ],
      },
    ]);
    expect(result.status).toBe("completed");
    const image = {
      type: "image",
      source: { type: "base64", media_type: "image/png", data: PNG_B64 },
    };
    const [first, second] = server.requests.map((r) => r.json());
    expect(first.messages).toEqual([
      { role: "user", content: [{ type: "text", text: "what time is it?" }, image] },
    ]);
    expect(second.messages.at(-1)).toEqual({
      role: "user",
      content: [{ type: "tool_result", tool_use_id: expect.any(String), content: [image] }],
    });
  });
});
