/**
 * tollgate's UI message stream against the real `ai@7`: one chat script played on a tollgate
 * route (`chatResponse`) and on the AI SDK's own route (`streamText(...).toUIMessageStreamResponse`),
 * both read by the AI SDK's client code (`DefaultChatTransport`, `readUIMessageStream`), gives
 * the same `UIMessage` parts after each round, but for the differences on purpose listed below.
 */
import { AgentLoop, memoryRunStore, type RunState, type RunStore, tool } from "tollgate";
import { scriptedProvider } from "tollgate/testing";
import { chatResponse } from "tollgate/ui";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { aiSdkSkipReason, loadPeer } from "../support/ai-sdk-peers.js";
import {
  type AiClient,
  addToolOutput,
  type ChatRoute,
  comparableParts,
  outlineDifferences,
  partDifferences,
  respondToApproval,
  streamOutline,
  type UIMessage,
  uiChat,
} from "../support/ui-chat.js";

const skipReason = aiSdkSkipReason("test/ui/ai-sdk-parity.test.ts");

/** What this test uses of `ai` besides the client code. */
interface Ai extends AiClient {
  tool(definition: {
    description: string;
    inputSchema: unknown;
    needsApproval?: boolean;
    execute?: (input: never) => unknown;
  }): object;
  streamText(options: { model: object; tools: Record<string, object>; messages: unknown[] }): {
    toUIMessageStreamResponse(options: { originalMessages: UIMessage[] }): Response;
  };
  convertToModelMessages(
    messages: UIMessage[],
    options: { tools: Record<string, object> },
  ): Promise<unknown[]>;
  lastAssistantMessageIsCompleteWithApprovalResponses(options: { messages: UIMessage[] }): boolean;
  lastAssistantMessageIsCompleteWithToolCalls(options: { messages: UIMessage[] }): boolean;
}
/** What this test uses of `ai/test`. */
interface AiTest {
  MockLanguageModelV4: new (options: { doStream: () => Promise<unknown> }) => object;
  convertArrayToReadableStream<T>(parts: T[]): ReadableStream<T>;
}

const ai = skipReason === "" ? await loadPeer<Ai>("ai") : undefined;
const aiTest = skipReason === "" ? await loadPeer<AiTest>("ai/test") : undefined;

const PROMPT = "Refund orders 7 and 8, and tell me the weather where I am";
const ANSWER = "Refunded order 7; order 8 was not refunded. It is 21 °C in Oslo.";
interface ScriptTurn {
  text?: string;
  toolCalls?: { id: string; name: string; args: Record<string, unknown> }[];
}
/** The model's turns, the same on both sides: one turn per step. */
const SCRIPT: ScriptTurn[] = [
  {
    text: "Let me look.",
    toolCalls: [
      { id: "call-weather", name: "weather", args: { city: "Oslo" } },
      { id: "call-refund-7", name: "refund", args: { order: 7 } },
      { id: "call-refund-8", name: "refund", args: { order: 8 } },
    ],
  },
  { toolCalls: [{ id: "call-locate", name: "locate", args: {} }] },
  { text: ANSWER },
];

/** The turn as a `LanguageModelV4` stream, in 4-character fragments as tollgate's fakes stream. */
function modelStream(turn: ScriptTurn, step: number): unknown[] {
  const fragments = (text: string) => text.match(/.{1,4}/gsu) ?? [];
  const parts: unknown[] = [{ type: "stream-start", warnings: [] }];
  if (turn.text !== undefined) {
    const id = `text-${step}`;
    parts.push({ type: "text-start", id });
    for (const delta of fragments(turn.text)) parts.push({ type: "text-delta", id, delta });
    parts.push({ type: "text-end", id });
  }
  for (const call of turn.toolCalls ?? []) {
    const input = JSON.stringify(call.args);
    parts.push({ type: "tool-input-start", id: call.id, toolName: call.name });
    for (const delta of fragments(input))
      parts.push({ type: "tool-input-delta", id: call.id, delta });
    parts.push({ type: "tool-input-end", id: call.id });
    parts.push({ type: "tool-call", toolCallId: call.id, toolName: call.name, input });
  }
  const unified = turn.toolCalls ? "tool-calls" : "stop";
  parts.push({
    type: "finish",
    finishReason: { unified, raw: unified },
    usage: {
      inputTokens: { total: 0, noCache: 0, cacheRead: undefined, cacheWrite: undefined },
      outputTokens: { total: 0, text: 0, reasoning: undefined },
    },
  });
  return parts;
}

const weatherInput = z.object({ city: z.string() });
const refundInput = z.object({ order: z.number() });
const locateInput = z.object({});

/** The AI SDK's own route over the script: `streamText` on `MockLanguageModelV4`. */
function aiSdkRoute() {
  const { tool: aiTool, streamText, convertToModelMessages } = ai as Ai;
  const { MockLanguageModelV4, convertArrayToReadableStream } = aiTest as AiTest;
  const ran: string[] = [];
  let step = 0;
  const model = new MockLanguageModelV4({
    doStream: async () => {
      const turn = SCRIPT[step];
      if (turn === undefined) throw new Error(`the AI SDK's model was called past the script`);
      return { stream: convertArrayToReadableStream(modelStream(turn, step++)) };
    },
  });
  const tools = {
    weather: aiTool({
      description: "The weather in a city",
      inputSchema: weatherInput,
      execute: ({ city }: z.infer<typeof weatherInput>) => {
        ran.push(`weather ${city}`);
        return { city, tempC: 21 };
      },
    }),
    refund: aiTool({
      description: "Refunds an order",
      inputSchema: refundInput,
      needsApproval: true,
      execute: ({ order }: z.infer<typeof refundInput>) => {
        ran.push(`refund ${order}`);
        return { refunded: order };
      },
    }),
    // A client-side tool: no execute; the page answers it with addToolOutput.
    locate: aiTool({
      description: "Where the user is, from the browser",
      inputSchema: locateInput,
    }),
  };
  const route: ChatRoute = async (request) => {
    const { messages } = (await request.json()) as { messages: UIMessage[] };
    const result = streamText({
      model,
      tools,
      messages: await convertToModelMessages(messages, { tools }),
    });
    return result.toUIMessageStreamResponse({ originalMessages: messages });
  };
  return { route, ran, steps: () => step };
}

/** tollgate's route over the same script: `chatResponse` on `scriptedProvider`, runs in a store. */
function tollgateRoute() {
  const ran: string[] = [];
  const memory = memoryRunStore();
  /** Every state the run wrote, to look for its secrets in what the browser got. */
  const written: RunState[] = [];
  const store: RunStore = {
    ...memory,
    put: (state, lease) => {
      written.push(structuredClone(state));
      return memory.put(state, lease);
    },
  };
  const provider = scriptedProvider(SCRIPT, { stream: true });
  const weather = tool({
    name: "weather",
    description: "The weather in a city",
    input: weatherInput,
    execute: ({ city }) => {
      ran.push(`weather ${city}`);
      return { city, tempC: 21 };
    },
  });
  const refund = tool({
    name: "refund",
    description: "Refunds an order",
    input: refundInput,
    needsApproval: true,
    execute: ({ order }) => {
      ran.push(`refund ${order}`);
      return { refunded: order };
    },
  });
  // A client-side tool: no execute; the page answers it with addToolOutput.
  const locate = tool({
    name: "locate",
    description: "Where the user is, from the browser",
    input: locateInput,
  });
  const loop = new AgentLoop({ provider, tools: [weather, refund, locate], store });
  const route: ChatRoute = (request) => chatResponse(request, { loop, store });
  return { route, ran, provider, store, written };
}

/** The chat a page plays on `route`: the three rounds, with the page's answers between them. */
async function playChat(route: ChatRoute) {
  const chat = uiChat(ai as Ai, route, CHAT_ID);
  const user: UIMessage = { id: "user-1", role: "user", parts: [{ type: "text", text: PROMPT }] };
  const first = await chat.send([user]);
  const approved = respondToApproval(first.message, "call-refund-7", { approved: true });
  const answered = respondToApproval(approved, "call-refund-8", {
    approved: false,
    reason: "not eligible",
  });
  const second = await chat.send([user, answered]);
  const located = addToolOutput(second.message, "call-locate", { city: "Oslo" });
  const third = await chat.send([user, located]);
  // What the page's `sendAutomaticallyWhen` says of each message it holds, in order.
  const { lastAssistantMessageIsCompleteWithApprovalResponses: approvals } = ai as Ai;
  const { lastAssistantMessageIsCompleteWithToolCalls: toolCalls } = ai as Ai;
  const autoSend = [first.message, approved, answered, second.message, located, third.message].map(
    (message) =>
      approvals({ messages: [user, message] }) || toolCalls({ messages: [user, message] }),
  );
  return { chat, user, rounds: [first, second, third], answered, located, autoSend };
}

const CHAT_ID = "chat-1";

/** Tool parts of the script, as both routes leave them in the chat (approval ids normalised). */
const weatherPart = {
  type: "tool-weather",
  toolCallId: "call-weather",
  state: "output-available",
  input: { city: "Oslo" },
  output: { city: "Oslo", tempC: 21 },
};
const refundAsked = (order: number, approval: number) => ({
  type: "tool-refund",
  toolCallId: `call-refund-${order}`,
  state: "approval-requested",
  input: { order },
  approval: { id: `approval-${approval}` },
});
const round1 = [
  { type: "step-start" },
  { type: "text", text: "Let me look.", state: "done" },
  weatherPart,
  refundAsked(7, 1),
  refundAsked(8, 2),
];
const answeredRefunds = [
  {
    type: "tool-refund",
    toolCallId: "call-refund-7",
    state: "output-available",
    input: { order: 7 },
    output: { refunded: 7 },
    approval: { id: "approval-1", approved: true },
  },
  {
    type: "tool-refund",
    toolCallId: "call-refund-8",
    state: "output-denied",
    input: { order: 8 },
    approval: { id: "approval-2", approved: false, reason: "not eligible" },
  },
];
const locatePart = {
  type: "tool-locate",
  toolCallId: "call-locate",
  state: "input-available",
  input: {},
};
const round2 = [...round1.slice(0, 3), ...answeredRefunds, { type: "step-start" }, locatePart];
const round3 = [
  ...round2.slice(0, -1),
  { ...locatePart, state: "output-available", output: { city: "Oslo" } },
  { type: "step-start" },
  { type: "text", text: ANSWER, state: "done" },
];
/** The assistant message's parts after each round, as the AI SDK's own route gives them. */
const EXPECTED = [round1, round2, round3];

/**
 * What tollgate's route does differently from the AI SDK's, on purpose, round by round, asserted
 * exactly: a difference that goes away, or a new one, fails the test.
 * - `parts`: the assistant message after the round (`partDifferences`): none.
 * - `stream`: the round's chunks (`outlineDifferences` of `streamOutline`s, deltas left out):
 *   `+` only tollgate's, `-` only the AI SDK's, `~` both, in another place.
 */
const DIFFERENCES = [
  {
    parts: [],
    stream: [
      // A new run names its assistant message (the AI SDK's route does when given
      // `generateMessageId`; without, the page names it).
      "- start",
      "+ start messageId",
      // An approval id is derived from the paused run's digest: it exists once the step's
      // allowed calls ran and the run paused, so the requests come at the run's end.
      "~ tool-approval-request call-refund-7",
      "~ tool-approval-request call-refund-8",
    ],
  },
  {
    parts: [],
    stream: [
      // A resume continues the page's own assistant message, so it names none (the AI SDK's
      // route repeats its id from `originalMessages`).
      "- start messageId",
      "+ start",
    ],
  },
  {
    parts: [],
    stream: ["- start messageId", "+ start"],
  },
];

describe.skipIf(skipReason !== "")(`useChat's parts: tollgate vs ai@7${skipReason}`, () => {
  it("the AI SDK's own route (streamText, toUIMessageStreamResponse) gives these parts", async () => {
    const side = aiSdkRoute();
    const { rounds, autoSend } = await playChat(side.route);
    expect(rounds.map((round) => comparableParts(round.message))).toEqual(EXPECTED);
    expect(rounds.flatMap((round) => round.errors)).toEqual([]);
    expect(autoSend).toEqual([false, false, true, false, true, false]);
    expect(side.ran).toEqual(["weather Oslo", "refund 7"]);
    expect(side.steps()).toBe(SCRIPT.length);
  });

  it("tollgate's route gives the same parts after each round, but for DIFFERENCES", async () => {
    const reference = await playChat(aiSdkRoute().route);
    const side = tollgateRoute();
    const played = await playChat(side.route);
    const differences = played.rounds.map((round, index) => {
      const theirs = reference.rounds[index]!;
      return {
        parts: partDifferences(comparableParts(theirs.message), comparableParts(round.message)),
        stream: outlineDifferences(streamOutline(theirs.chunks), streamOutline(round.chunks)),
      };
    });
    expect(differences).toEqual(DIFFERENCES);
    expect(played.rounds.flatMap((round) => round.errors)).toEqual([]);
    // The page sends on its own at the same moments.
    expect(played.autoSend).toEqual(reference.autoSend);
    // Order 7's refund ran exactly once, order 8's never; the model was called once a step.
    expect(side.ran).toEqual(["weather Oslo", "refund 7"]);
    side.provider.assertComplete();
  });

  it("the comparison finds a changed field, a missing part and a moved chunk", () => {
    const parts = [
      { type: "step-start" },
      { type: "tool-refund", toolCallId: "r", state: "output-denied", approval: { id: "a" } },
    ];
    const changed = [
      {
        type: "tool-refund",
        toolCallId: "r",
        state: "output-error",
        approval: { id: "a", approved: false },
      },
    ];
    expect(partDifferences(parts, changed)).toEqual([
      "step-start (part 0): only in the AI SDK's",
      "tool-refund r: approval.approved: absent → false",
      'tool-refund r: state: "output-denied" → "output-error"',
    ]);
    expect(
      outlineDifferences(["start", "a", "b", "finish"], ["b", "a", "finish", "abort"]),
    ).toEqual(["- start", "~ a", "+ abort"]);
  });

  it("tollgate's stream carries no state, signature, digest or stack; it is the v1 UI message stream", async () => {
    const side = tollgateRoute();
    const { chat } = await playChat(side.route);
    expect(side.written.at(-1)?.status).toBe("completed");
    // The secrets of every state the run wrote: state ids, digests, signatures.
    const secrets = new Set<string>();
    const collect = (value: unknown, key = ""): void => {
      if (typeof value === "string" && /^(stateId|digest|signature)$/.test(key)) secrets.add(value);
      if (value !== null && typeof value === "object") {
        for (const [name, inner] of Object.entries(value)) collect(inner, name);
      }
    };
    for (const state of side.written) collect(state);
    expect(side.written.some((state) => state.status === "needs_approval")).toBe(true);
    expect([...secrets].length).toBeGreaterThan(side.written.length); // digests too
    expect(chat.exchanges).toHaveLength(3);
    for (const exchange of chat.exchanges) {
      expect(exchange.status).toBe(200);
      expect(exchange.headers.get("x-vercel-ai-ui-message-stream")).toBe("v1");
      expect(exchange.headers.get("content-type")).toMatch(/^text\/event-stream/);
      expect(exchange.text).toMatch(/^data: \{"type":"start"/);
      expect(exchange.text).toMatch(/\n\ndata: \[DONE\]\n\n$/);
      expect(exchange.text).not.toMatch(/state|signature|digest|stack/i);
      expect(exchange.text).not.toMatch(/\bat \S+ \(|:\d+:\d+\)/); // no stack frame
      for (const secret of secrets) expect(exchange.text).not.toContain(secret);
    }
  });

  it("a replayed round-2 POST is answered 409 and runs nothing, while the run waits and once it is done", async () => {
    const side = tollgateRoute();
    const chat = uiChat(ai as Ai, side.route, CHAT_ID);
    const user: UIMessage = { id: "user-1", role: "user", parts: [{ type: "text", text: PROMPT }] };
    const first = await chat.send([user]);
    const answered = respondToApproval(
      respondToApproval(first.message, "call-refund-7", { approved: true }),
      "call-refund-8",
      { approved: false, reason: "not eligible" },
    );
    const second = await chat.send([user, answered]);
    expect(side.ran).toEqual(["weather Oslo", "refund 7"]);
    const replay = async () => {
      const modelCalls = side.provider.requests.length;
      const error = await chat.send([user, answered]).then(
        () => undefined,
        (rejection: unknown) => rejection,
      );
      const exchange = chat.exchanges.at(-1)!;
      expect(exchange.body).toBe(chat.exchanges[1]!.body); // the same body again
      expect(exchange.status).toBe(409);
      expect(exchange.headers.get("content-type")).toMatch(/^text\/plain/);
      // useChat shows the body as the error's message
      expect((error as Error | undefined)?.message).toBe(exchange.text);
      expect(side.provider.requests).toHaveLength(modelCalls);
      return exchange.text;
    };
    // While the run waits for the client-side tool's result: nothing the replay answers waits.
    expect(await replay()).toMatch(/call-locate.*nothing ran/);
    expect(side.ran).toEqual(["weather Oslo", "refund 7"]);
    expect((await side.store.get(CHAT_ID))?.status).toBe("needs_results");
    // The refused replay did not use the run up: the page's real answer still goes on.
    const third = await chat.send([
      user,
      addToolOutput(second.message, "call-locate", { city: "Oslo" }),
    ]);
    expect(comparableParts(third.message).at(-1)).toEqual({
      type: "text",
      text: ANSWER,
      state: "done",
    });
    // Once the run is done.
    expect(await replay()).toMatch(/not waiting.*nothing ran/);
    expect(side.ran).toEqual(["weather Oslo", "refund 7"]);
    expect((await side.store.get(CHAT_ID))?.status).toBe("completed");
    side.provider.assertComplete();
  });
});
