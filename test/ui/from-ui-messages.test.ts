/**
 * `fromUIMessages`: the chat's messages as the browser holds them become the transcript the model
 * read — checked against the transcript the server's own run wrote for the same chat.
 */
import { AgentLoop, memoryRunStore, tool } from "tollgate";
import { scriptedProvider } from "tollgate/testing";
import { chatResponse, fromUIMessages } from "tollgate/ui";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  answer,
  assistantFrom,
  chatPost,
  chunksOf,
  output,
  userSays,
} from "../support/chat-posts.js";

describe("fromUIMessages", () => {
  it("gives back the transcript the run wrote: text, calls, outputs, errors and a human's refusal", async () => {
    const store = memoryRunStore();
    const loop = new AgentLoop({
      provider: scriptedProvider(
        [
          {
            text: "Looking.",
            toolCalls: [
              { name: "refund", args: { order: 7 } },
              { name: "refund", args: { order: 8 } },
              { name: "fail", args: {} },
            ],
          },
          { toolCalls: [{ name: "locate", args: {} }] },
          { text: "Done." },
        ],
        { stream: true },
      ),
      store,
      tools: [
        tool({
          name: "refund",
          description: "Refunds",
          input: z.object({ order: z.number() }),
          needsApproval: true,
          execute: ({ order }) => ({ refunded: order }),
        }),
        tool({
          name: "fail",
          description: "Fails",
          input: z.object({}),
          execute: () => {
            throw new Error("disk full");
          },
        }),
        tool({ name: "locate", description: "The page answers", input: z.object({}) }),
      ],
    });
    const user = userSays("Refund 7 and 8");
    const post = async (message?: unknown) =>
      chunksOf(
        await chatResponse(chatPost({ id: "c", messages: message ? [user, message] : [user] }), {
          loop,
          store,
        }),
      );
    let browser = assistantFrom(await post());
    browser = answer(answer(browser, "call_0_0", true), "call_0_1", false, "not eligible");
    browser = assistantFrom(await post(browser), browser);
    browser = output(browser, "call_1_0", { city: "Oslo" });
    browser = assistantFrom(await post(browser), browser);

    const stored = (await store.get("c"))!;
    expect(stored.status).toBe("completed");
    expect(fromUIMessages([user, browser])).toEqual(stored.messages);
  });

  it("takes a user's files and images, and leaves the page's own parts out", () => {
    expect(
      fromUIMessages([
        {
          role: "user",
          parts: [
            { type: "text", text: "What is in these?" },
            { type: "file", mediaType: "image/png", url: "data:image/png;base64,AAAA" },
            {
              type: "file",
              mediaType: "application/pdf",
              url: "https://x/a.pdf",
              filename: "a.pdf",
            },
            { type: "data-weather", data: { temp: 21 } },
          ],
        },
        {
          role: "assistant",
          parts: [
            { type: "step-start" },
            { type: "reasoning", text: "think" },
            { type: "text", text: "An image and a PDF." },
            { type: "source-url", sourceId: "s", url: "https://x" },
          ],
        },
      ]),
    ).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "What is in these?" },
          { type: "image", image: "data:image/png;base64,AAAA", mediaType: "image/png" },
          {
            type: "file",
            data: "https://x/a.pdf",
            mediaType: "application/pdf",
            filename: "a.pdf",
          },
        ],
      },
      {
        role: "assistant",
        parts: [
          { type: "reasoning", text: "think" },
          { type: "text", text: "An image and a PDF." },
        ],
      },
    ]);
  });

  it("a dynamic tool part is a call like any other", () => {
    expect(
      fromUIMessages([
        {
          role: "assistant",
          parts: [
            {
              type: "dynamic-tool",
              toolName: "mcp_read",
              toolCallId: "d1",
              state: "output-error",
              input: { p: 1 },
              errorText: "nope",
            },
          ],
        },
      ]),
    ).toEqual([
      {
        role: "assistant",
        parts: [{ type: "tool-call", id: "d1", name: "mcp_read", args: '{"p":1}' }],
      },
      {
        role: "tool",
        results: [{ toolCallId: "d1", toolName: "mcp_read", output: "nope", isError: true }],
      },
    ]);
  });

  it.each([
    [
      "not an array",
      { role: "user" },
      /^fromUIMessages\(\): expected an array of UI messages, got an object/,
    ],
    [
      "a message without parts",
      [{ role: "user" }],
      /^messages\[0\]: expected a UI message with `role` and `parts`/,
    ],
    [
      "a system message",
      [{ role: "system", parts: [] }],
      /^messages\[0\]: a system message from the browser is not taken/,
    ],
    [
      "another role",
      [{ role: "tool", parts: [] }],
      /^messages\[0\]\.role: expected "user" or "assistant", got the string "tool"/,
    ],
    [
      "a part without a type",
      [{ role: "user", parts: [{ text: "hi" }] }],
      /^messages\[0\]\.parts\[0\]: expected a part with a `type`/,
    ],
    [
      "an unknown part",
      [{ role: "user", parts: [{ type: "video", url: "x" }] }],
      /^messages\[0\]\.parts\[0\]: a part of type "video" is not one/,
    ],
    [
      "text that is not a string",
      [{ role: "user", parts: [{ type: "text", text: 1 }] }],
      /^messages\[0\]\.parts\[0\]\.text: expected a string, got 1/,
    ],
  ])("refuses %s, naming the path", (_name, messages, message) => {
    expect(() => fromUIMessages(messages)).toThrow(message);
  });
});
