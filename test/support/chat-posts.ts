import type { UIMessageChunk } from "tollgate/ui";

/** A POST as `useChat`'s default transport sends it. */
export function chatPost(body: unknown, init: { type?: string; method?: string } = {}): Request {
  const method = init.method ?? "POST";
  return new Request("http://127.0.0.1/api/chat", {
    method,
    headers: { "content-type": init.type ?? "application/json" },
    ...(method === "GET" ? {} : { body: typeof body === "string" ? body : JSON.stringify(body) }),
  });
}

/** The chunks of a UI message stream response (its `data:` lines), checking it ends with [DONE]. */
export async function chunksOf(response: Response): Promise<UIMessageChunk[]> {
  const text = await response.text();
  const lines = text.split("\n\n").filter((line) => line !== "");
  if (lines.at(-1) !== "data: [DONE]")
    throw new Error(`the stream did not end with [DONE]: ${text}`);
  return lines.slice(0, -1).map((line) => {
    if (!line.startsWith("data: ")) throw new Error(`not a data line: ${line}`);
    return JSON.parse(line.slice("data: ".length)) as UIMessageChunk;
  });
}

/** A user's message of a chat. */
export const userSays = (text: string, id = `u-${text.length}`) => ({
  id,
  role: "user" as const,
  parts: [{ type: "text", text }],
});

/**
 * The assistant message the browser holds after reading chunks, built the way the AI SDK's
 * client builds its parts (enough of it for these tests: tool parts by id, their states,
 * approvals). The parity test reads the same streams with the real `readUIMessageStream`.
 */
export function assistantFrom(
  chunks: UIMessageChunk[],
  message = { id: "a", role: "assistant" as const, parts: [] as Record<string, unknown>[] },
) {
  const byId = (id: string) => {
    const part = message.parts.find((p) => p.toolCallId === id);
    if (!part) throw new Error(`no tool part ${id}`);
    return part;
  };
  const texts = new Map<string, Record<string, unknown>>();
  for (const chunk of chunks) {
    switch (chunk.type) {
      case "start-step":
        message.parts.push({ type: "step-start" });
        break;
      case "text-start": {
        const part = { type: "text", text: "", state: "streaming" };
        texts.set(chunk.id, part);
        message.parts.push(part);
        break;
      }
      case "text-delta":
        texts.get(chunk.id)!.text += chunk.delta;
        break;
      case "text-end":
        texts.get(chunk.id)!.state = "done";
        break;
      case "tool-input-start":
        message.parts.push({
          type: `tool-${chunk.toolName}`,
          toolCallId: chunk.toolCallId,
          state: "input-streaming",
        });
        break;
      case "tool-input-available":
        Object.assign(byId(chunk.toolCallId), { state: "input-available", input: chunk.input });
        break;
      case "tool-approval-request":
        Object.assign(byId(chunk.toolCallId), {
          state: "approval-requested",
          approval: { id: chunk.approvalId },
        });
        break;
      case "tool-output-available":
        Object.assign(byId(chunk.toolCallId), { state: "output-available", output: chunk.output });
        break;
      case "tool-output-error":
        Object.assign(byId(chunk.toolCallId), {
          state: "output-error",
          errorText: chunk.errorText,
        });
        break;
      case "tool-output-denied":
        Object.assign(byId(chunk.toolCallId), { state: "output-denied" });
        break;
      default:
        break;
    }
  }
  return message;
}

/** The browser's answer to an approval, as `addToolApprovalResponse` leaves the part. */
export function answer(
  message: ReturnType<typeof assistantFrom>,
  toolCallId: string,
  approved: boolean,
  reason?: string,
) {
  const copy = structuredClone(message);
  const part = copy.parts.find((p) => p.toolCallId === toolCallId)!;
  part.state = "approval-responded";
  part.approval = {
    ...(part.approval as object),
    approved,
    ...(reason === undefined ? {} : { reason }),
  };
  return copy;
}

/** The page's output for a client-side tool's call, as `addToolOutput` leaves the part. */
export function output(
  message: ReturnType<typeof assistantFrom>,
  toolCallId: string,
  value: unknown,
) {
  const copy = structuredClone(message);
  Object.assign(copy.parts.find((p) => p.toolCallId === toolCallId)!, {
    state: "output-available",
    output: value,
  });
  return copy;
}
