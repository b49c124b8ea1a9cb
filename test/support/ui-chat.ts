/**
 * The browser's half of a chat, played with the real AI SDK client code (`ai`): each round posts
 * the chat's messages through `DefaultChatTransport` (whose `fetch` hands the `Request` to a
 * route handler in this process) and folds the answer's chunks into the assistant message with
 * `readUIMessageStream`, continuing the last assistant message as `useChat` does. The answers a
 * page gives between rounds are written as `addToolApprovalResponse` and `addToolOutput` write
 * them. test/ui/ai-sdk-parity.test.ts plays one script on tollgate's route and on the AI SDK's.
 */

/** A `UIMessage` part, as loose data (the tests compare them field by field). */
export type UIPart = { type: string; [key: string]: unknown };
/** A `UIMessage` of `ai`. */
export interface UIMessage {
  id: string;
  role: "system" | "user" | "assistant";
  metadata?: unknown;
  parts: UIPart[];
}
/** A UI message chunk, as `DefaultChatTransport` parsed it. */
export type UIChunk = { type: string; [key: string]: unknown };

/** What the tests use of `ai`'s client code. */
export interface AiClient {
  DefaultChatTransport: new (options: {
    api?: string;
    fetch?: (input: string | URL | Request, init?: RequestInit) => Promise<Response>;
  }) => {
    sendMessages(options: {
      trigger: "submit-message" | "regenerate-message";
      chatId: string;
      messageId: string | undefined;
      messages: UIMessage[];
      abortSignal: AbortSignal | undefined;
    }): Promise<ReadableStream<UIChunk>>;
  };
  readUIMessageStream(options: {
    message?: UIMessage;
    stream: ReadableStream<UIChunk>;
    onError?: (error: unknown) => void;
    terminateOnError?: boolean;
  }): AsyncIterable<UIMessage>;
}

/** A route handler: what `POST /api/chat` answers. */
export type ChatRoute = (request: Request) => Response | Promise<Response>;

/** One HTTP exchange of a round, as the route answered it (the body read whole). */
export interface Exchange {
  body: string;
  status: number;
  headers: Headers;
  /** The response body's text: the raw SSE of a 200, the error text otherwise. */
  text: string;
}

/** What one round gave the page. */
export interface Round {
  /** The assistant message after the round (a copy). */
  message: UIMessage;
  /** The chunks the transport parsed, in order. */
  chunks: UIChunk[];
  /** The HTTP exchange. */
  exchange: Exchange;
  /** `error` chunks and stream errors `readUIMessageStream` reported. */
  errors: unknown[];
}

/**
 * A chat page over `route`: `send(messages)` is one request of `useChat` (the body
 * `{ id, messages, trigger, messageId }`); every exchange is kept in `exchanges`.
 */
export function uiChat(ai: AiClient, route: ChatRoute, chatId: string) {
  const exchanges: Exchange[] = [];
  const fetch = async (input: string | URL | Request, init?: RequestInit) => {
    const request = new Request(new URL(String(input), "http://127.0.0.1"), init);
    const body = await request.clone().text();
    const response = await route(request);
    const text = await response.text();
    exchanges.push({ body, status: response.status, headers: response.headers, text });
    // The body was read to keep its text; the transport reads the same bytes.
    return new Response(response.status === 204 ? null : text, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
  const transport = new ai.DefaultChatTransport({ api: "/api/chat", fetch });

  /** Posts `messages` as `useChat` does and reads the answer into the assistant message. */
  async function send(messages: UIMessage[]): Promise<Round> {
    const last = messages.at(-1);
    const continued = last?.role === "assistant" ? structuredClone(last) : undefined;
    const stream = await transport.sendMessages({
      trigger: "submit-message",
      chatId,
      // useChat's automatic send after an answer names the assistant message; a new one, none.
      messageId: continued?.id,
      messages: structuredClone(messages),
      abortSignal: undefined,
    });
    const chunks: UIChunk[] = [];
    const errors: unknown[] = [];
    const recorded = stream.pipeThrough(
      new TransformStream<UIChunk, UIChunk>({
        transform(chunk, controller) {
          chunks.push(structuredClone(chunk));
          controller.enqueue(chunk);
        },
      }),
    );
    let message: UIMessage | undefined;
    const read = ai.readUIMessageStream({
      ...(continued ? { message: continued } : {}),
      stream: recorded,
      onError: (error) => errors.push(error),
    });
    for await (const snapshot of read) message = snapshot;
    if (message === undefined) throw new Error("the round's stream gave no message");
    return { message: structuredClone(message), chunks, exchange: exchanges.at(-1)!, errors };
  }

  return { send, exchanges };
}

const toolPart = (message: UIMessage, toolCallId: string) => {
  const part = message.parts.find((candidate) => candidate.toolCallId === toolCallId);
  if (part === undefined) throw new Error(`no tool part with toolCallId ${toolCallId}`);
  return part;
};

/**
 * The page's answer to an approval request, as `addToolApprovalResponse({ id, approved,
 * reason })` writes it: the part asking for approval goes to `approval-responded`.
 */
export function respondToApproval(
  message: UIMessage,
  toolCallId: string,
  answer: { approved: boolean; reason?: string },
): UIMessage {
  const copy = structuredClone(message);
  const part = toolPart(copy, toolCallId);
  const approval = part.approval as { id: string } | undefined;
  if (part.state !== "approval-requested" || approval === undefined) {
    throw new Error(`tool part ${toolCallId} asks for no approval (state ${String(part.state)})`);
  }
  part.state = "approval-responded";
  part.approval = {
    ...approval,
    id: approval.id,
    approved: answer.approved,
    reason: answer.reason,
  };
  return copy;
}

/** The page's answer to a client-side tool, as `addToolOutput({ toolCallId, output })` writes it. */
export function addToolOutput(message: UIMessage, toolCallId: string, output: unknown): UIMessage {
  const copy = structuredClone(message);
  const index = copy.parts.findIndex((candidate) => candidate.toolCallId === toolCallId);
  const part = copy.parts[index];
  if (part === undefined) throw new Error(`no tool part with toolCallId ${toolCallId}`);
  const { approval, ...rest } = part as UIPart & { approval?: { approved?: boolean } };
  copy.parts[index] = {
    ...rest,
    ...(approval?.approved === true ? { approval } : {}),
    state: "output-available",
    input: part.input,
    output,
    errorText: undefined,
  };
  return copy;
}

/**
 * A message's parts as data to compare: JSON-normalised (a key set to `undefined` is a key
 * not sent), with the ids that are random on purpose replaced by their order of appearance
 * (`approval-1`, ...). The message id is left out.
 */
export function comparableParts(message: UIMessage): UIPart[] {
  const approvalIds = new Map<string, string>();
  const parts = JSON.parse(JSON.stringify(message.parts)) as UIPart[];
  for (const part of parts) {
    const approval = part.approval as { id?: unknown } | undefined;
    if (approval && typeof approval.id === "string") {
      if (!approvalIds.has(approval.id)) {
        approvalIds.set(approval.id, `approval-${approvalIds.size + 1}`);
      }
      approval.id = approvalIds.get(approval.id);
    }
  }
  return parts;
}

/** A part's identity for lining two messages up: its type, and its call's id for a tool part. */
const partKey = (part: UIPart) =>
  typeof part.toolCallId === "string" ? `${part.type} ${part.toolCallId}` : part.type;

const shown = (value: unknown) => (value === undefined ? "absent" : JSON.stringify(value));

/** The paths at which two JSON values differ, each as `path: a → b`. */
function valueDifferences(path: string, a: unknown, b: unknown): string[] {
  const bothObjects = a !== null && b !== null && typeof a === "object" && typeof b === "object";
  if (!bothObjects || Array.isArray(a) !== Array.isArray(b)) {
    return JSON.stringify(a) === JSON.stringify(b) ? [] : [`${path}: ${shown(a)} → ${shown(b)}`];
  }
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  const keys = [...new Set([...Object.keys(left), ...Object.keys(right)])].sort();
  const at = (key: string) =>
    Array.isArray(a) ? `${path}[${key}]` : path ? `${path}.${key}` : key;
  return keys.flatMap((key) => valueDifferences(at(key), left[key], right[key]));
}

/**
 * Every difference between the parts the AI SDK's route gave (`a`) and tollgate's (`b`), both
 * from `comparableParts`, as lines `<type> <toolCallId>: <path>: <AI SDK's> → <tollgate's>`.
 * The parts are lined up by type and call id (a longest common subsequence), so a part only one
 * side has is one line (`only in tollgate's`), not a shift of every part after it.
 */
export function partDifferences(a: UIPart[], b: UIPart[]): string[] {
  const keysA = a.map(partKey);
  const keysB = b.map(partKey);
  // lcs[i][j]: the longest common subsequence of keysA[i..] and keysB[j..].
  const lcs = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      lcs[i]![j] =
        keysA[i] === keysB[j]
          ? lcs[i + 1]![j + 1]! + 1
          : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
    }
  }
  const lines: string[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && keysA[i] === keysB[j]) {
      lines.push(...valueDifferences("", a[i], b[j]).map((line) => `${keysA[i]}: ${line}`));
      i++;
      j++;
    } else if (i < a.length && (j === b.length || lcs[i + 1]![j]! >= lcs[i]![j + 1]!)) {
      lines.push(`${keysA[i]} (part ${i}): only in the AI SDK's`);
      i++;
    } else {
      lines.push(`${keysB[j]} (part ${j}): only in tollgate's`);
      j++;
    }
  }
  return lines;
}

/**
 * A round's chunks as a short outline: one line per chunk but the input and text streaming ones
 * (`*-delta`, `tool-input-start`: where a part starts filling follows the model's stream; the
 * parts hold the sum), each the chunk's type with the call it is about (`toolCallId`), a `start`'s
 * message id as the word `messageId` (or nothing), a `finish`'s reason.
 */
export function streamOutline(chunks: UIChunk[]): string[] {
  return chunks.flatMap((chunk) => {
    if (chunk.type.endsWith("-delta") || chunk.type === "tool-input-start") return [];
    if (chunk.type === "start")
      return [chunk.messageId === undefined ? "start" : "start messageId"];
    if (chunk.type === "finish") return [`finish ${String(chunk.finishReason)}`];
    return [
      typeof chunk.toolCallId === "string" ? `${chunk.type} ${chunk.toolCallId}` : chunk.type,
    ];
  });
}

/**
 * How tollgate's outline (`b`) differs from the AI SDK's (`a`), a longest common subsequence
 * apart: `+ line` only tollgate's has, `- line` only the AI SDK's, `~ line` both have in another
 * place (shown where tollgate's has it).
 */
export function outlineDifferences(a: string[], b: string[]): string[] {
  const lcs = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      lcs[i]![j] =
        a[i] === b[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
    }
  }
  const added: string[] = [];
  const removed: string[] = [];
  const lines: { sign: "+" | "-"; line: string }[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      i++;
      j++;
    } else if (i < a.length && (j === b.length || lcs[i + 1]![j]! >= lcs[i]![j + 1]!)) {
      removed.push(a[i]!);
      lines.push({ sign: "-", line: a[i++]! });
    } else {
      added.push(b[j]!);
      lines.push({ sign: "+", line: b[j++]! });
    }
  }
  const moved = new Set(added.filter((line) => removed.includes(line)));
  return lines.flatMap(({ sign, line }) => {
    if (!moved.has(line)) return [`${sign} ${line}`];
    return sign === "+" ? [`~ ${line}`] : [];
  });
}
