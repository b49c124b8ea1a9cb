/**
 * The AI SDK's UI message stream protocol (v1, as `ai@7` and `@ai-sdk/react@4` speak it), written
 * as structural types so that `tollgate/ui` needs no `ai` at run time. Only what tollgate writes
 * and reads is here.
 */

/** A chunk of the UI message stream, as tollgate writes it (one SSE `data:` line each). */
export type UIMessageChunk =
  | { type: "start"; messageId?: string }
  | { type: "start-step" }
  | { type: "text-start"; id: string }
  | { type: "text-delta"; id: string; delta: string }
  | { type: "text-end"; id: string }
  | { type: "reasoning-start"; id: string }
  | { type: "reasoning-delta"; id: string; delta: string }
  | { type: "reasoning-end"; id: string }
  | { type: "tool-input-start"; toolCallId: string; toolName: string }
  | { type: "tool-input-delta"; toolCallId: string; inputTextDelta: string }
  | { type: "tool-input-available"; toolCallId: string; toolName: string; input: unknown }
  | {
      type: "tool-input-error";
      toolCallId: string;
      toolName: string;
      input: unknown;
      errorText: string;
    }
  | { type: "tool-approval-request"; approvalId: string; toolCallId: string; reason?: string }
  | { type: "tool-output-available"; toolCallId: string; output: unknown }
  | { type: "tool-output-error"; toolCallId: string; errorText: string }
  | { type: "tool-output-denied"; toolCallId: string }
  | { type: "finish-step" }
  | { type: "finish"; finishReason?: string }
  | { type: "error"; errorText: string }
  | { type: "abort"; reason?: string };

/**
 * A message as `useChat` posts it (`UIMessage` of the AI SDK), read loosely: `fromUIMessages`
 * checks each field it uses where it uses it.
 */
export interface UIMessageInput {
  id?: string;
  role: "user" | "assistant" | "system";
  parts: UIPartInput[];
  metadata?: unknown;
}

/** One part of a posted message (text, file, reasoning, a tool part, a step boundary…). */
export interface UIPartInput {
  type: string;
  [key: string]: unknown;
}

/** The response headers of a UI message stream. */
export const UI_STREAM_HEADERS: Readonly<Record<string, string>> = {
  "content-type": "text/event-stream",
  "cache-control": "no-cache",
  "x-vercel-ai-ui-message-stream": "v1",
  "x-accel-buffering": "no",
};
