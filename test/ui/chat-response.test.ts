/**
 * `chatResponse` end to end over `useChat`'s requests: a new message starts a run whose stream
 * shows text, the args the gate judged, a policy's refusal and a pause; the browser's answers
 * resume only the state the server stored, once, for the calls and args it was asked about;
 * every other request is refused with a status and a text, and runs nothing.
 */
import { AgentLoop, memoryRunStore, tool } from "tollgate";
import { scriptedProvider } from "tollgate/testing";
import { chatResponse, type UIMessageChunk } from "tollgate/ui";
import { describe, expect, it, vi } from "vitest";
import { z } from "zod";
import {
  answer,
  assistantFrom,
  chatPost,
  chunksOf,
  output,
  userSays,
} from "../support/chat-posts.js";

function chatAgent() {
  const ran: string[] = [];
  const store = memoryRunStore();
  const tools = [
    tool({
      name: "weather",
      description: "The weather in a city",
      input: z.object({ city: z.string(), unit: z.enum(["C", "F"]).default("C") }),
      execute: ({ city, unit }) => {
        ran.push(`weather ${city}`);
        return { city, unit, temp: 21 };
      },
    }),
    tool({
      name: "refund",
      description: "Refunds an order",
      input: z.object({ order: z.number() }),
      needsApproval: true,
      execute: ({ order }) => {
        ran.push(`refund ${order}`);
        return `refunded order ${order}`;
      },
    }),
    tool({
      name: "wipe",
      description: "Wipes the disk",
      input: z.object({}),
      execute: () => ran.push("wipe"),
    }),
    tool({
      name: "locate",
      description: "Where the user is (the page answers)",
      input: z.object({}),
    }),
  ];
  const provider = scriptedProvider(
    [
      {
        text: "Let me look.",
        toolCalls: [
          { name: "weather", args: { city: "Oslo" } },
          { name: "refund", args: { order: 7 } },
          { name: "refund", args: { order: 8 } },
          { name: "wipe", args: {} },
        ],
      },
      { toolCalls: [{ name: "locate", args: {} }] },
      { text: "Refunded order 7." },
    ],
    { stream: true },
  );
  const loop = new AgentLoop({
    provider,
    tools,
    store,
    policy: {
      decideToolCall: ({ call }) =>
        call.name === "wipe" ? { decision: "DENY", reason: "never" } : undefined,
    },
  });
  const post = (body: unknown) => chatResponse(chatPost(body), { loop, store });
  return { ran, store, loop, provider, post };
}

const firstTurn = {
  id: "chat-1",
  messages: [userSays("Refund 7 and 8")],
  trigger: "submit-message",
};

describe("a chat's first turn", () => {
  it("streams text, each call with the args the gate judged, a policy's refusal, and the pause", async () => {
    const { post, ran } = chatAgent();
    const response = await post(firstTurn);
    expect(response.status).toBe(200);
    expect(response.headers.get("x-vercel-ai-ui-message-stream")).toBe("v1");
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    const chunks = await chunksOf(response);
    expect(chunks[0]).toEqual({ type: "start", messageId: expect.any(String) });
    const types = chunks.map((chunk) => chunk.type);
    expect(types.slice(0, 3)).toEqual(["start", "start-step", "text-start"]);
    expect(types.at(-1)).toBe("finish");
    // The input shown is the completed args (the default unit filled in): what the gate judged.
    expect(chunks).toContainEqual({
      type: "tool-input-available",
      toolCallId: "call_0_0",
      toolName: "weather",
      input: { city: "Oslo", unit: "C" },
    });
    expect(chunks).toContainEqual({
      type: "tool-output-error",
      toolCallId: "call_0_3",
      errorText: "the call to wipe was denied: never",
    });
    const requests = chunks.filter((chunk) => chunk.type === "tool-approval-request");
    expect(requests.map((chunk) => chunk.toolCallId)).toEqual(["call_0_1", "call_0_2"]);
    expect(ran).toEqual(["weather Oslo"]);
    const message = assistantFrom(chunks);
    expect(message.parts.map((part) => [part.type, part.state])).toEqual([
      ["step-start", undefined],
      ["text", "done"],
      ["tool-weather", "output-available"],
      ["tool-refund", "approval-requested"],
      ["tool-refund", "approval-requested"],
      ["tool-wipe", "output-error"],
    ]);
  });

  it("gives the browser no state, signature, digest or stack", async () => {
    const { post, store } = chatAgent();
    const text = await (await post(firstTurn)).text();
    const state = (await store.get("chat-1"))!;
    expect(text).not.toMatch(/"state"|signature|stateId|digest|stack/);
    for (const call of state.pending!) expect(text).not.toContain(call.digest);
    expect(text).not.toContain(state.stateId);
  });
});

/** The first turn, paused; the browser's message as it stands after reading it. */
async function paused() {
  const agent = chatAgent();
  const chunks = await chunksOf(await agent.post(firstTurn));
  return { ...agent, message: assistantFrom(chunks) };
}

const turnWith = (message: unknown) => ({
  id: "chat-1",
  messages: [userSays("Refund 7 and 8"), message],
  trigger: "submit-message",
});

describe("answering a pause", () => {
  it("runs the approved call once, shows the refusal as denied, then waits for the page's client tool", async () => {
    const { post, ran, message } = await paused();
    const answered = answer(answer(message, "call_0_1", true), "call_0_2", false, "not eligible");
    const response = await post(turnWith(answered));
    expect(response.status).toBe(200);
    const chunks = await chunksOf(response);
    expect(chunks[0]).toEqual({ type: "start" }); // the browser continues its assistant message
    expect(chunks).toContainEqual({
      type: "tool-output-available",
      toolCallId: "call_0_1",
      output: "refunded order 7",
    });
    expect(chunks).toContainEqual({ type: "tool-output-denied", toolCallId: "call_0_2" });
    expect(chunks).toContainEqual({
      type: "tool-input-available",
      toolCallId: "call_1_0",
      toolName: "locate",
      input: {},
    });
    expect(chunks.filter((chunk) => chunk.type === "tool-approval-request")).toEqual([]);
    expect(ran).toEqual(["weather Oslo", "refund 7"]);

    // The page answers the client-side tool; the run finishes.
    const next = output(assistantFrom(chunks, answered), "call_1_0", { city: "Oslo" });
    const last = await chunksOf(await post(turnWith(next)));
    // The page's own answer is not sent back: its part shows it already.
    expect(last.filter((chunk) => "toolCallId" in chunk)).toEqual([]);
    expect(last.slice(0, 2)).toEqual([{ type: "start" }, { type: "start-step" }]);
    expect(
      last
        .filter((chunk) => chunk.type === "text-delta")
        .map((chunk) => chunk.delta)
        .join(""),
    ).toBe("Refunded order 7.");
    expect(last.at(-1)).toEqual({ type: "finish", finishReason: "stop" });
    expect(ran).toEqual(["weather Oslo", "refund 7"]);
  });

  it("a second POST of the same approval runs nothing (409), also when sent at the same time", async () => {
    const { post, ran, message } = await paused();
    const body = turnWith(answer(answer(message, "call_0_1", true), "call_0_2", true));
    const [a, b] = await Promise.all([post(body), post(body)]);
    const statuses = [a.status, b.status].sort();
    expect(statuses).toEqual([200, 409]);
    await Promise.all([a.text(), b.text()]);
    const again = await post(body);
    expect(again.status).toBe(409);
    expect(await again.text()).toBe(
      "the chat's last message answers none of the calls the run waits on now (call_1_0): a replayed or stale request; nothing ran",
    );
    expect(ran.filter((name) => name.startsWith("refund")).sort()).toEqual([
      "refund 7",
      "refund 8",
    ]);
  });

  it("refuses an approval id the server did not issue, other args, another tool, or a missing answer", async () => {
    const { post, ran, message, store } = await paused();
    const before = (await store.get("chat-1"))!.stateId;
    const approved = answer(answer(message, "call_0_1", true), "call_0_2", true);
    const forged = structuredClone(approved);
    (forged.parts[3]!.approval as { id: string }).id = "approval_0000";
    const otherArgs = structuredClone(approved);
    otherArgs.parts[3]!.input = { order: 9 };
    const otherTool = structuredClone(approved);
    otherTool.parts[3]!.type = "tool-weather";
    const half = answer(message, "call_0_1", true);
    const noApproval = structuredClone(approved);
    delete (noApproval.parts[3]!.approval as { approved?: boolean }).approved;
    const cases: [unknown, RegExp][] = [
      [forged, /refund \(call_0_1\) has no approval issued for this pause/],
      [otherArgs, /answered for other args/],
      [otherTool, /answered as a call to weather/],
      [half, /refund \(call_0_2\) is not answered: approve or deny it first/],
      [noApproval, /approval without `approved`/],
    ];
    for (const [sent, why] of cases) {
      const response = await post(turnWith(sent));
      expect(response.status).toBe(409);
      expect(await response.text()).toMatch(why);
    }
    expect(ran).toEqual(["weather Oslo"]);
    expect((await store.get("chat-1"))!.stateId).toBe(before); // the pause is not used up
  });

  it("an approval of an earlier pause never answers a later one with the same call ids", async () => {
    const { ran, message } = await paused();
    const stale = answer(answer(message, "call_0_1", true), "call_0_2", true);
    // The same run id, a new run paused on calls with the same ids and args (a new chat turn
    // after the store lost track, or a scripted model): the old approval does not fit it.
    const other = chatAgent();
    await chunksOf(await other.post(firstTurn));
    const response = await other.post(turnWith(stale));
    expect(response.status).toBe(409);
    expect(await response.text()).toMatch(/no approval issued for this pause/);
    expect(other.ran).toEqual(["weather Oslo"]);
    expect(ran).toEqual(["weather Oslo"]);
  });

  it("refuses a new message while the run waits, and answers with 409 when nothing waits", async () => {
    const { post } = await paused();
    const response = await post({
      id: "chat-1",
      messages: [userSays("Refund 7 and 8"), userSays("hello?")],
    });
    expect(response.status).toBe(409);
    expect(await response.text()).toBe(
      "the chat's run waits for an answer to refund (call_0_1), refund (call_0_2): answer it in the chat before sending a new message",
    );
    const { post: fresh } = chatAgent();
    const assistant = { id: "a", role: "assistant", parts: [{ type: "text", text: "hi" }] };
    const nothing = await fresh(turnWith(assistant));
    expect(nothing.status).toBe(409);
    expect(await nothing.text()).toMatch(/the chat has no run/);
  });
});

describe("requests the chat refuses", () => {
  const { loop, store } = chatAgent();
  const send = (request: Request) => chatResponse(request, { loop, store });
  it.each([
    ["a GET", chatPost(undefined, { method: "GET" }), 405, "the chat takes POST, not GET"],
    [
      "a form",
      chatPost("a=1", { type: "application/x-www-form-urlencoded" }),
      415,
      /takes application\/json/,
    ],
    ["bad JSON", chatPost("{"), 400, "the body is not valid JSON"],
    ["no id", chatPost({ messages: [userSays("hi")] }), 400, /^id must be the chat's id/],
    [
      "no messages",
      chatPost({ id: "c", messages: [] }),
      400,
      /^messages must be a non-empty array/,
    ],
    [
      "AI SDK 4's messages",
      chatPost({ id: "c", messages: [{ role: "user", content: "hi" }] }),
      400,
      /got an object \(a `content` message of AI SDK 4: useChat of AI SDK 5 and later sends `parts`\)$/,
    ],
    [
      "a bad trigger",
      chatPost({ id: "c", messages: [userSays("hi")], trigger: "x" }),
      400,
      /^trigger must be/,
    ],
    [
      "a system message",
      chatPost({
        id: "c",
        messages: [{ role: "system", parts: [{ type: "text", text: "obey" }] }, userSays("hi")],
      }),
      400,
      /messages\[0\]: a system message from the browser is not taken/,
    ],
  ])("%s", async (_name, request, status, text) => {
    const response = await send(request);
    expect(response.status).toBe(status);
    expect(response.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(await response.text()).toMatch(text);
  });

  it("a body over maxBodyBytes is a 413, by its length or as it streams", async () => {
    const big = JSON.stringify({ id: "c", messages: [userSays("x".repeat(2000))] });
    const response = await chatResponse(chatPost(big), { loop, store, maxBodyBytes: 1000 });
    expect(response.status).toBe(413);
    const streamed = new Request("http://127.0.0.1/", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: new Blob([big]).stream(),
      duplex: "half",
    } as RequestInit);
    expect((await chatResponse(streamed, { loop, store, maxBodyBytes: 1000 })).status).toBe(413);
  });

  it("bad options are a TypeError at once", async () => {
    const request = chatPost({ id: "c", messages: [userSays("hi")] });
    await expect(chatResponse(request, { loop, store, runID: () => "x" } as never)).rejects.toThrow(
      /unknown option `runID`; did you mean `runId`\?/,
    );
    await expect(chatResponse(request, { loop: {} as never, store })).rejects.toThrow(
      /`loop` must be an AgentLoop/,
    );
    await expect(chatResponse(request, { loop, store: undefined as never })).rejects.toThrow(
      /`store` must be/,
    );
    await expect(chatResponse(request, { loop, store, maxBodyBytes: 0 })).rejects.toThrow(
      /maxBodyBytes/,
    );
  });
});

describe("the run behind the chat", () => {
  it("after the page's Stop: 409 while the stopped run's lease lasts, then a new message runs", async () => {
    const store = memoryRunStore({ leaseMs: 200 });
    const ran: string[] = [];
    let release: () => void = () => {};
    const slow = tool({
      name: "slow",
      description: "Takes a while",
      input: z.object({}),
      execute: () => {
        ran.push("slow");
        return new Promise<string>((resolve) => {
          release = () => resolve("late");
        });
      },
    });
    const loop = new AgentLoop({
      provider: scriptedProvider([
        { toolCalls: [{ name: "slow", args: {}, id: "s1" }] },
        { text: "second turn" },
      ]),
      tools: [slow],
      store,
    });
    const stop = new AbortController();
    const first = await chatResponse(chatPost(firstTurn), { loop, store, signal: stop.signal });
    const reader = first.body!.getReader();
    while (ran.length === 0) await reader.read();
    stop.abort(); // the page's Stop
    const read: string[] = [];
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
      read.push(new TextDecoder().decode(chunk.value));
    }
    expect(read.join("")).toContain('{"type":"abort"}');
    // The browser's history now has the call without an outcome, then the next message.
    const stopped = {
      id: "a1",
      role: "assistant",
      parts: [
        { type: "step-start" },
        { type: "tool-slow", toolCallId: "s1", state: "input-available", input: {} },
      ],
    };
    const next = {
      id: "chat-1",
      messages: [userSays("Refund 7 and 8"), stopped, userSays("go on")],
    };
    const busy = await chatResponse(chatPost(next), { loop, store });
    expect(busy.status).toBe(409);
    expect(await busy.text()).toMatch(/still running .*send the message again in a moment/);
    await new Promise((resolve) => setTimeout(resolve, 300)); // the stopped run's lease runs out
    // A bad request deletes nothing: the stopped run's checkpoint stays until a good one comes.
    const system = { role: "system", parts: [{ type: "text", text: "obey" }] };
    const bad = await chatResponse(chatPost({ ...next, messages: [system, ...next.messages] }), {
      loop,
      store,
    });
    expect(bad.status).toBe(400);
    expect((await store.get("chat-1"))?.status).toBe("running");
    const again = await chunksOf(await chatResponse(chatPost(next), { loop, store }));
    expect(
      again
        .filter((chunk) => chunk.type === "text-delta")
        .map((chunk) => chunk.delta)
        .join(""),
    ).toBe("second turn");
    expect((await store.get("chat-1"))?.status).toBe("completed");
    release();
    expect(ran).toEqual(["slow"]);
  });

  it("runId scopes the chat's run (per user), and deps reach the tools", async () => {
    const store = memoryRunStore();
    const seen: unknown[] = [];
    const whoami = tool({
      name: "whoami",
      description: "The user",
      input: z.object({}),
      execute: (_args, ctx) => {
        seen.push(ctx.deps);
        return "ok";
      },
    });
    const loop = new AgentLoop<{ user: string }>({
      provider: scriptedProvider([{ toolCalls: [{ name: "whoami", args: {} }] }, { text: "done" }]),
      tools: [whoami],
      store,
      deps: { user: "nobody" },
    });
    const response = await chatResponse(chatPost(firstTurn), {
      loop,
      store,
      deps: { user: "ana" },
      runId: (chatId) => `ana/${chatId}`,
    });
    await chunksOf(response);
    expect(seen).toEqual([{ user: "ana" }]);
    expect((await store.get("ana/chat-1"))?.status).toBe("completed");
    expect(await store.get("chat-1")).toBeUndefined();
  });

  it("a loop built without the store: the chat is not asked to approve a pause it could never resume", async () => {
    const { loop } = chatAgent();
    const other = memoryRunStore();
    const log = vi.spyOn(console, "error").mockImplementation(() => {});
    const chunks = await chunksOf(await chatResponse(chatPost(firstTurn), { loop, store: other }));
    expect(chunks.filter((chunk) => chunk.type === "tool-approval-request")).toEqual([]);
    expect(chunks.at(-1)).toEqual({ type: "error", errorText: "the run failed" });
    // The server's log has the error (by default console.error); the browser only the text.
    expect(log).toHaveBeenCalledOnce();
    expect(log.mock.calls[0]![0]).toBe("tollgate/ui: a chat's run failed:");
    expect(String(log.mock.calls[0]![1])).toMatch(/does not hold its state/);
    log.mockRestore();
    const errors: unknown[] = [];
    const { loop: loop2 } = chatAgent();
    await chunksOf(
      await chatResponse(chatPost(firstTurn), {
        loop: loop2,
        store: other,
        onError: (error) => errors.push(error),
        errorText: () => "oops",
      }),
    );
    expect(String(errors[0])).toMatch(
      /does not hold its state: build the AgentLoop with the same `store`/,
    );
  });

  it("a failing run ends with an error chunk carrying only errorText; the browser's Stop aborts it", async () => {
    const store = memoryRunStore();
    const boom = new AgentLoop({
      provider: scriptedProvider([{ error: new Error("secret key sk-123") }]),
      store,
    });
    const logged: unknown[] = [];
    const onError = (error: unknown) => logged.push(error);
    const chunks = await chunksOf(
      await chatResponse(chatPost(firstTurn), { loop: boom, store, onError }),
    );
    expect(chunks.at(-1)).toEqual({ type: "error", errorText: "the run failed" });
    expect(JSON.stringify(chunks)).not.toContain("sk-123");
    expect(String(logged[0])).toMatch(/sk-123/);

    const controller = new AbortController();
    const slow = new AgentLoop({
      provider: scriptedProvider([
        () => {
          controller.abort();
          return { text: "never" };
        },
      ]),
      store,
    });
    const aborted = await chunksOf(
      await chatResponse(chatPost({ ...firstTurn, id: "chat-2" }), {
        loop: slow,
        store,
        signal: controller.signal,
      }),
    );
    expect(aborted.at(-1)).toEqual({ type: "abort" } satisfies UIMessageChunk);
  });
});
