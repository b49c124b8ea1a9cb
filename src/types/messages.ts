/** Token counts of one model response, or summed over a run. */
export interface Usage {
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  /** Tokens the model spent thinking, when the provider reports them. */
  reasoningTokens?: number;
  /** Input tokens served from the provider's prompt cache, when reported. */
  cachedInputTokens?: number;
  /**
   * `true` when the provider reported no token counts (in a sum: when some model call did not),
   * so the counts above are only what was reported, 0 when nothing was. A token limit and
   * `tollgate/otel` take such usage as unknown, never as 0.
   */
  unknown?: true;
}

/** One piece of an assistant message: text, reasoning, or a request to call a tool. */
export type AssistantPart =
  | { type: "text"; text: string }
  | { type: "reasoning"; text: string; signature?: string | undefined }
  | { type: "tool-call"; id: string; name: string; args: string };

/** A tool call as the model sent it: its id, the tool's name, and the args' JSON text. */
export type ToolCallPart = Extract<AssistantPart, { type: "tool-call" }>;

/**
 * Where an image or a file comes from: an `http(s)` URL (a string or a `URL`), a base64 `data:`
 * URL, or its bytes. The transcript and the run state keep it as a string: bytes become a base64
 * data URL, a `URL` its `href`.
 */
export type MediaSource = string | URL | Uint8Array;

/** A piece of text in a user message or a tool's content. */
export interface TextPart {
  type: "text";
  text: string;
}

/**
 * An image in a user message or a tool's content. `mediaType` (`image/png`…) is read from a data
 * URL, or from the first bytes of PNG, JPEG, GIF and WebP; give it for other bytes, and for a URL
 * sent to Gemini.
 */
export interface ImagePart {
  type: "image";
  image: MediaSource;
  mediaType?: string | undefined;
}

/** A file (a PDF, a text file…) in a user message; which types a provider takes is its own rule. */
export interface FilePart {
  type: "file";
  data: MediaSource;
  mediaType: string;
  filename?: string | undefined;
}

/** One piece of a user message: text, an image, or a file. */
export type UserPart = TextPart | ImagePart | FilePart;

/** One piece of what a tool answered with `toolContent(...)`: text or an image. */
export type ToolContentPart = TextPart | ImagePart;

/** What a tool call produced, as the model will see it. Error outputs are strings. */
export interface ToolResult {
  toolCallId: string;
  toolName: string;
  /** The output; for a tool that answered with `content`, the text of its text parts. */
  output: unknown;
  isError: boolean;
  /** The args the tool ran with, when a human edited them on approval. */
  editedArgs?: unknown;
  /** What the model sees instead of `output` when the tool answered with `toolContent(...)`. */
  content?: ToolContentPart[];
}

/**
 * A provider-neutral transcript entry. Tool results of one step share one `tool` message,
 * in call order. A user message is text, or parts (text, images, files).
 */
export type Message =
  | { role: "user"; content: string | UserPart[] }
  | { role: "assistant"; parts: AssistantPart[] }
  | { role: "tool"; results: ToolResult[] };

/** A tool call after the gate: `args` are parsed, validated and possibly rewritten by hooks. */
export interface ToolCall {
  id: string;
  name: string;
  args: unknown;
  /** The JSON text exactly as the model sent it. */
  rawArgs: string;
}

/** What the model sees of a tool: its name, description and JSON Schema. */
export interface ToolSpec {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}
