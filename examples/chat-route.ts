/**
 * A chat route for the AI SDK's `useChat`, behind the gate: `chatResponse` answers the page's
 * POST with the UI message stream, and a paused run waits in the store for the page's
 * Approve / Deny. The "browser" below sends what `useChat` sends, by hand.
 * Run: npx tsx examples/chat-route.ts
 */
import { AgentLoop, memoryRunStore, tool } from "tollgate";
import { scriptedProvider } from "tollgate/testing";
import { chatResponse } from "tollgate/ui";
import { z } from "zod";

const refund = tool({
  name: "refund",
  description: "Refunds an order",
  input: z.object({ order: z.number() }),
  needsApproval: true,
  execute: ({ order }) => `refunded order ${order}`,
});

/** Where a paused run waits between requests (across processes: tollgate/redis or tollgate/postgres). */
const store = memoryRunStore();
const loop = new AgentLoop({
  provider: scriptedProvider([
    { text: "I will refund it.", toolCalls: [{ name: "refund", args: { order: 7 } }] },
    { text: "Done: order 7 is refunded." },
  ]),
  tools: [refund],
  store,
});

// The route: app/api/chat/route.ts in Next.js, a Hono handler, or Node's http via an adapter.
export const POST = (request: Request) => chatResponse(request, { loop, store });

// --- The browser's side, by hand: what useChat posts and reads. ---

type Chunk = { type: string; [key: string]: unknown };

/** POSTs the chat's messages as useChat does, and reads the UI message stream's chunks. */
async function send(messages: unknown[]): Promise<Chunk[]> {
  const response = await POST(
    new Request("http://localhost/api/chat", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ id: "chat-1", messages, trigger: "submit-message" }),
    }),
  );
  if (!response.ok) throw new Error(`${response.status}: ${await response.text()}`);
  const lines = (await response.text()).split("\n\n").filter((line) => line.startsWith("data: {"));
  return lines.map((line) => JSON.parse(line.slice("data: ".length)) as Chunk);
}

const user = { id: "m1", role: "user", parts: [{ type: "text", text: "Refund order 7" }] };
const first = await send([user]);
const request = first.find((chunk) => chunk.type === "tool-approval-request")!;
console.log("first response:", first.map((chunk) => chunk.type).join(" "));

// The user clicks Approve: addToolApprovalResponse({ id: request.approvalId, approved: true }).
const assistant = {
  id: "m2",
  role: "assistant",
  parts: [
    { type: "step-start" },
    { type: "text", text: "I will refund it.", state: "done" },
    {
      type: "tool-refund",
      toolCallId: request.toolCallId,
      state: "approval-responded",
      input: { order: 7 },
      approval: { id: request.approvalId, approved: true },
    },
  ],
};
const second = await send([user, assistant]);
const text = second.flatMap((chunk) => (chunk.type === "text-delta" ? [chunk.delta] : [])).join("");
console.log(
  "refund output:",
  second.find((chunk) => chunk.type === "tool-output-available")?.output,
);
console.log("assistant:", text);

// The same approval posted again (a double click, a retried request) runs nothing.
const replay = await POST(
  new Request("http://localhost/api/chat", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ id: "chat-1", messages: [user, assistant] }),
  }),
);
console.log("replayed approval:", replay.status, await replay.text());
