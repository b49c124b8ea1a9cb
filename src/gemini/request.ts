import type {
  AssistantPart,
  Message,
  ModelRequest,
  ToolResult,
  ToolSpec,
  UserPart,
} from "tollgate";
import { cannotCarry, mediaOf } from "../http/media-parts.js";
import { defined, splitSettings } from "../http/settings.js";
import { argsObject } from "../http/tool-values.js";
import { toGeminiSchema } from "./schema.js";

type Part = Record<string, unknown>;
type Content = { role: "user" | "model"; parts: Part[] };

/** Request fields that settings keys may set directly; any other settings key goes into `generationConfig`. */
const TOP_LEVEL_FIELDS = new Set(["safetySettings", "cachedContent", "toolConfig", "labels"]);

/**
 * Maps an assistant message to model parts. A reasoning part's signature belongs to the part
 * that follows the thoughts (where Gemini puts it: the first function call, or the text), so it
 * is sent on the next text or function call; it stays on the thought itself only when no such
 * part follows.
 */
function modelParts(parts: AssistantPart[]): Part[] {
  const out: Part[] = [];
  let carried: string | undefined;
  const signed = (part: Part): Part => {
    const result = carried ? { ...part, thoughtSignature: carried } : part;
    carried = undefined;
    return result;
  };
  parts.forEach((part, i) => {
    if (part.type === "reasoning") {
      const next = parts[i + 1];
      const carry = part.signature !== undefined && next !== undefined && next.type !== "reasoning";
      const own = carry ? {} : part.signature ? { thoughtSignature: part.signature } : {};
      if (part.text) out.push({ text: part.text, thought: true, ...own });
      else if (!carry && part.signature) out.push({ text: "", ...own });
      carried = carry ? part.signature : undefined;
    } else if (part.type === "text") {
      if (part.text || carried) out.push(signed({ text: part.text }));
    } else {
      out.push(
        signed({ functionCall: { id: part.id, name: part.name, args: argsObject(part.args) } }),
      );
    }
  });
  return out;
}

/**
 * A user part as a Gemini part: `text`, `inlineData` for bytes, or `fileData` for a URL (a Files
 * API URI, or a URL Gemini fetches), which needs the part's `mediaType`.
 */
function userPart(provider: string, part: UserPart): Part {
  if (part.type === "text") return { text: part.text };
  const media = mediaOf(provider, part);
  if (media.kind === "bytes") {
    return { inlineData: { mimeType: media.mediaType, data: media.base64 } };
  }
  if (media.mediaType === undefined) {
    throw cannotCarry(
      provider,
      `${part.type === "image" ? "an image" : "a file"} URL without its type (fileData needs a mimeType); give the part a mediaType`,
    );
  }
  return { fileData: { mimeType: media.mediaType, fileUri: media.url } };
}

/**
 * A `functionResponse` part: `{output}` or `{error}`, and a tool's images as `inlineData` in its
 * own `parts` (multimodal function responses; the Gemini API takes no `fileData` there).
 */
function functionResponse(provider: string, result: ToolResult): Part {
  const response = result.isError ? { error: result.output } : { output: result.output };
  const parts: Part[] = [];
  for (const part of result.content ?? []) {
    if (part.type === "text") continue; // their text is the output
    const media = mediaOf(provider, part);
    if (media.kind === "url") {
      throw cannotCarry(
        provider,
        `an image by URL in a tool result (tool ${result.toolName}): function responses take image bytes only`,
      );
    }
    parts.push({ inlineData: { mimeType: media.mediaType, data: media.base64 } });
  }
  return {
    functionResponse: {
      id: result.toolCallId,
      name: result.toolName,
      response,
      ...(parts.length > 0 && { parts }),
    },
  };
}

/**
 * Maps the transcript to Gemini contents. A `tool` message becomes one user content of
 * `functionResponse` parts in call order, each with the call's name and id (`{output}` or
 * `{error}`); contents of the same role are merged, as Gemini wants turns to alternate.
 */
export function geminiContents(messages: Message[], provider = "gemini"): Content[] {
  const out: Content[] = [];
  const push = (role: Content["role"], parts: Part[]) => {
    if (parts.length === 0) return;
    const last = out[out.length - 1];
    if (last?.role === role) last.parts.push(...parts);
    else out.push({ role, parts });
  };
  for (const message of messages) {
    if (message.role === "user") {
      const { content } = message;
      push(
        "user",
        typeof content === "string"
          ? [{ text: content }]
          : content.map((part) => userPart(provider, part)),
      );
    } else if (message.role === "assistant") push("model", modelParts(message.parts));
    else
      push(
        "user",
        message.results.map((result) => functionResponse(provider, result)),
      );
  }
  return out;
}

/** A function declaration; a tool without parameters gets none (Gemini refuses empty objects). */
function declaration(tool: ToolSpec): Record<string, unknown> {
  const parameters = toGeminiSchema(tool.inputSchema);
  const empty = !parameters.properties || Object.keys(parameters.properties as object).length === 0;
  return { name: tool.name, description: tool.description, ...(!empty && { parameters }) };
}

function toolConfig(choice: NonNullable<ModelRequest["toolChoice"]>): Record<string, unknown> {
  if (typeof choice !== "string") {
    return { functionCallingConfig: { mode: "ANY", allowedFunctionNames: [choice.name] } };
  }
  const mode = choice === "required" ? "ANY" : choice === "none" ? "NONE" : "AUTO";
  return { functionCallingConfig: { mode } };
}

/**
 * The generateContent request body. Portable settings go into `generationConfig`; other
 * settings keys go there too (`thinkingConfig`, `topK`, `responseMimeType`…; a
 * `generationConfig` object is merged in), except the request-level `safetySettings`,
 * `cachedContent`, `toolConfig` and `labels`.
 */
export function geminiBody(request: ModelRequest, provider = "gemini"): Record<string, unknown> {
  const { temperature, topP, maxOutputTokens, stopSequences, seed, extra } = splitSettings(
    request.settings,
  );
  const topLevel: Record<string, unknown> = {};
  const generationConfig: Record<string, unknown> = defined({
    temperature,
    topP,
    maxOutputTokens,
    stopSequences,
    seed,
  });
  if (request.responseFormat) {
    // Structured output: Gemini reads JSON Schema itself here (not its OpenAPI subset).
    const { $schema: _, ...schema } = request.responseFormat.schema;
    generationConfig.responseMimeType = "application/json";
    generationConfig.responseJsonSchema = schema;
  }
  for (const [key, value] of Object.entries(extra)) {
    if (TOP_LEVEL_FIELDS.has(key)) topLevel[key] = value;
    else if (key === "generationConfig") Object.assign(generationConfig, value);
    else generationConfig[key] = value;
  }
  const tools = request.tools.length > 0 && {
    tools: [{ functionDeclarations: request.tools.map(declaration) }],
    ...(request.toolChoice && { toolConfig: toolConfig(request.toolChoice) }),
  };
  return {
    contents: geminiContents(request.messages, provider),
    ...(request.system && { systemInstruction: { parts: [{ text: request.system }] } }),
    ...tools,
    ...(Object.keys(generationConfig).length > 0 && { generationConfig }),
    ...topLevel,
  };
}
