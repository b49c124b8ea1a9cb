import { Validator } from "@cfworker/json-schema";
import {
  AgentLoop,
  type Message,
  RUN_STATE_SCHEMA,
  type RunState,
  ToolOutputError,
  tool,
  toolContent,
  type UserPart,
} from "tollgate";
import { scriptedProvider } from "tollgate/testing";
import { describe, expect, it } from "vitest";
import { z } from "zod";

/** The 8-byte PNG signature and a few bytes more: enough for the type to be read. */
const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
const PNG_URL = "data:image/png;base64,iVBORw0KGgoAAAAN";
const PDF = new TextEncoder().encode("%PDF-1.7 tiny");
const PDF_URL = `data:application/pdf;base64,${Buffer.from(PDF).toString("base64")}`;

const roundTrip = (state: RunState): RunState => JSON.parse(JSON.stringify(state));
const schemaErrors = (state: unknown) =>
  new Validator(RUN_STATE_SCHEMA as never, "2020-12", false).validate(state).errors;

/** A loop with one tool that needs approval and one that answers with a screenshot. */
function agent(turns: Parameters<typeof scriptedProvider>[0]) {
  const provider = scriptedProvider(turns);
  const send = tool({
    name: "send",
    input: z.object({ to: z.string() }),
    needsApproval: true,
    execute: ({ to }) => `sent to ${to}`,
  });
  const screenshot = tool({
    name: "screenshot",
    input: z.object({ page: z.string() }),
    execute: ({ page }) =>
      toolContent([
        { type: "text", text: `screenshot of ${page}` },
        { type: "image", image: PNG },
      ]),
  });
  const make = () => new AgentLoop({ provider, tools: [send, screenshot], trustState: true });
  return { provider, make };
}

const photoMessage = (): Message => ({
  role: "user",
  content: [
    { type: "text", text: "Who is in this photo? Mail them the report." },
    { type: "image", image: PNG },
    { type: "image", image: new URL("https://example.com/b.jpg") },
    { type: "file", data: PDF, mediaType: "application/pdf", filename: "report.pdf" },
  ],
});

const storedPhotoMessage = {
  role: "user",
  content: [
    { type: "text", text: "Who is in this photo? Mail them the report." },
    { type: "image", image: PNG_URL, mediaType: "image/png" },
    { type: "image", image: "https://example.com/b.jpg" },
    { type: "file", data: PDF_URL, mediaType: "application/pdf", filename: "report.pdf" },
  ],
};

describe("multimodal input through the loop", () => {
  it("stores bytes as base64 data URLs and URLs as strings; the provider gets the stored form", async () => {
    const { provider, make } = agent([{ text: "Ada" }]);
    const result = await make().run([photoMessage()]);
    expect(result.messages[0]).toEqual(storedPhotoMessage);
    expect(provider.requests[0]!.messages[0]).toEqual(storedPhotoMessage);
    expect(roundTrip(result.state)).toEqual(result.state);
    expect(schemaErrors(result.state)).toEqual([]);
    const broken = roundTrip(result.state);
    (broken.messages[0] as { content: UserPart[] }).content[1] = {
      type: "image",
      image: "cat.png",
    };
    expect(schemaErrors(broken)).not.toEqual([]);
    (broken.messages[0] as { content: unknown }).content = [];
    expect(schemaErrors(broken)).not.toEqual([]);
  });

  it("a run with image input pauses, goes through JSON, and resumes with its parts intact", async () => {
    const { provider, make } = agent([
      { toolCalls: [{ id: "s1", name: "send", args: { to: "ada@example.com" } }] },
      { text: "mailed" },
    ]);
    const paused = await make().run([photoMessage()]);
    expect(paused.status).toBe("needs_approval");
    const saved = JSON.stringify(paused.state);
    expect(saved).toContain(PNG_URL);

    const resumed = await make().resume(JSON.parse(saved), { s1: { approve: true } });
    expect(resumed.status).toBe("completed");
    expect(resumed.messages[0]).toEqual(storedPhotoMessage);
    expect(provider.requests[1]!.messages[0]).toEqual(storedPhotoMessage);
    expect(roundTrip(resumed.state)).toEqual(resumed.state);
  });

  it("a signed state with image parts resumes after a JSON round trip (the signature covers them)", async () => {
    const provider = scriptedProvider([
      { toolCalls: [{ id: "s1", name: "send", args: { to: "ada" } }] },
      { text: "done" },
    ]);
    const send = tool({
      name: "send",
      input: z.object({ to: z.string() }),
      needsApproval: true,
      execute: () => "sent",
    });
    const make = () =>
      new AgentLoop({ provider, tools: [send], signingKey: "k".repeat(32), allowReplay: true });
    const paused = await make().run([photoMessage()]);
    const state = roundTrip(paused.state);
    expect((await make().resume(state, { s1: { approve: true } })).status).toBe("completed");

    const tampered = roundTrip(paused.state);
    (tampered.messages[0] as { content: UserPart[] }).content[1] = {
      type: "image",
      image: "https://evil.example/x.png",
    };
    await expect(make().resume(tampered, { s1: { approve: true } })).rejects.toThrow(/signature/);
  });

  it("a tool answers with text and an image: the result keeps both, the model gets them, and the state round-trips", async () => {
    const { provider, make } = agent([
      { toolCalls: [{ id: "c1", name: "screenshot", args: { page: "home" } }] },
      { toolCalls: [{ id: "s1", name: "send", args: { to: "ada" } }] },
      { text: "done" },
    ]);
    const paused = await make().run("look at the home page");
    const expected = {
      toolCallId: "c1",
      toolName: "screenshot",
      output: "screenshot of home",
      isError: false,
      content: [
        { type: "text", text: "screenshot of home" },
        { type: "image", image: PNG_URL, mediaType: "image/png" },
      ],
    };
    expect(paused.messages[2]).toEqual({ role: "tool", results: [expected] });
    expect(provider.requests[1]!.messages[2]).toEqual({ role: "tool", results: [expected] });
    expect(paused.steps[0]!.calls[0]!.result).toEqual(expected);
    expect(schemaErrors(paused.state)).toEqual([]);

    const resumed = await make().resume(roundTrip(paused.state), { s1: { approve: true } });
    expect(resumed.messages[2]).toEqual({ role: "tool", results: [expected] });
  });

  it("a tool content part that cannot be stored is the tool's output error (ToolOutputError under toolErrors: throw)", async () => {
    const bad = tool({
      name: "bad",
      input: z.object({}),
      execute: () => toolContent([{ type: "image", image: "not a url" }]),
    });
    const turns = [{ toolCalls: [{ id: "b1", name: "bad", args: {} }] }, { text: "ok" }];
    const soft = await new AgentLoop({ provider: scriptedProvider(turns), tools: [bad] }).run("x");
    expect(soft.steps[0]!.calls[0]!.result).toMatchObject({
      isError: true,
      output: expect.stringMatching(
        /toolContent\(\.\.\.\): part 0: image: "not a url" is not a URL/,
      ),
    });
    const loud = new AgentLoop({
      provider: scriptedProvider(turns),
      tools: [bad],
      toolErrors: "throw",
    });
    await expect(loud.run("x")).rejects.toBeInstanceOf(ToolOutputError);
  });

  it("a hook may answer a call with toolContent: the result carries the stored parts", async () => {
    const provider = scriptedProvider([
      { toolCalls: [{ id: "c1", name: "screenshot", args: { page: "home" } }] },
      { text: "ok" },
    ]);
    const screenshot = tool({
      name: "screenshot",
      input: z.object({ page: z.string() }),
      execute: () => "never runs",
    });
    const cached = toolContent([{ type: "image", image: PNG }]);
    const loop = new AgentLoop({
      provider,
      tools: [screenshot],
      preToolCall: [() => ({ result: cached })],
    });
    const result = await loop.run("look");
    expect(result.steps[0]!.calls[0]!.result).toEqual({
      toolCallId: "c1",
      toolName: "screenshot",
      output: "",
      isError: false,
      content: [{ type: "image", image: PNG_URL, mediaType: "image/png" }],
    });
  });

  it("continuing a finished conversation keeps the stored parts as they are", async () => {
    const { provider, make } = agent([{ text: "Ada" }, { text: "yes" }]);
    const first = await make().run([photoMessage()]);
    await make().run([...first.messages, { role: "user", content: "sure?" }]);
    expect(provider.requests[1]!.messages[0]).toEqual(storedPhotoMessage);
  });
});

describe("user content is checked before the run starts (fail closed)", () => {
  const run = (content: unknown) =>
    new AgentLoop({ provider: scriptedProvider([{ text: "x" }]) }).run([
      { role: "user", content } as Message,
    ]);

  it.each([
    [[], /message 0 \(user\).*it has no parts/],
    [{ type: "text", text: "x" }, /expected an array of parts/],
    [[{ type: "text" }], /part 0: a text part's text must be a string, got undefined/],
    [[{ type: "image", image: "cat.png" }], /part 0: image: "cat.png" is not a URL; pass bytes/],
    [[{ type: "image", image: "ftp://x/y.png" }], /only http\(s\) and base64 data URLs.*ftp:/],
    [[{ type: "image", image: "data:image/png,abc" }], /a data URL must be base64/],
    [[{ type: "image", image: "data:image/png;base64,@@" }], /a data URL must be base64/],
    [
      [{ type: "image", image: PNG_URL, mediaType: "image/jpeg" }],
      /mediaType "image\/jpeg" contradicts the data URL's "image\/png"/,
    ],
    [[{ type: "image", image: new Uint8Array([1, 2, 3]) }], /not PNG, JPEG, GIF or WebP; give/],
    [[{ type: "image", image: PDF_URL }], /an image's media type must be image\/…/],
    [
      [{ type: "image", image: PNG, mimeType: "image/png" }],
      /unknown key `mimeType` in an image part.*`mediaType`/,
    ],
    [
      [{ type: "image", image: new ArrayBuffer(4) }],
      /an ArrayBuffer \(wrap it: new Uint8Array\(buffer\)\)/,
    ],
    [[{ type: "image_url", image_url: { url: "https://x" } }], /another API's shape; write/],
    [[{ type: "file", data: PDF }], /a file part needs a mediaType/],
    [[{ type: "file", data: PDF, mediaType: "pdf" }], /mediaType must be a media type/],
    [[{ type: "file", data: PDF, mediaType: "application/pdf", filename: 1 }], /filename must/],
    [[{ type: "audio", data: PDF }], /type must be one of "text", "image", "file", got "audio"/],
    [[null], /part 0: expected a part object, got null/],
  ])("%j is refused", async (content, message) => {
    await expect(run(content)).rejects.toThrow(TypeError);
    await expect(run(content)).rejects.toThrow(message);
  });

  it("reads JPEG, GIF and WebP bytes' types from their first bytes", async () => {
    const provider = scriptedProvider([{ text: "x" }]);
    const webp = new Uint8Array([0x52, 0x49, 0x46, 0x46, 1, 0, 0, 0, 0x57, 0x45, 0x42, 0x50]);
    const result = await new AgentLoop({ provider }).run([
      {
        role: "user",
        content: [
          { type: "image", image: new Uint8Array([0xff, 0xd8, 0xff, 0xe0]) },
          { type: "image", image: new Uint8Array([0x47, 0x49, 0x46, 0x38, 0x39, 0x61]) },
          { type: "image", image: webp },
        ],
      },
    ]);
    const parts = (result.messages[0] as { content: UserPart[] }).content;
    expect(parts.map((part) => (part as { mediaType: string }).mediaType)).toEqual([
      "image/jpeg",
      "image/gif",
      "image/webp",
    ]);
  });
});
