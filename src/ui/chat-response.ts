import {
  type AgentLoop,
  type LoopEvent,
  ResumeError,
  type RunState,
  type RunStore,
  StoreError,
} from "tollgate";
import { checkKeys } from "../util/option-keys.js";
import { shownError } from "../util/shown-error.js";
import { isPlainObject, kindOf } from "../util/values.js";
import { chatCallId } from "./approval-id.js";
import { answersOf } from "./chat-answers.js";
import { ChatRefusal, readChatRequest } from "./chat-request.js";
import type { ToolOutputView } from "./chunks.js";
import { fromUIMessages } from "./from-ui-messages.js";
import { chunkStream, uiStreamResponse } from "./to-ui-message-stream.js";
import type { UIMessageInput } from "./ui-message.js";

/** Options of `chatResponse`. */
export interface ChatResponseOptions<Deps = unknown> {
  /** The agent; it must be built with `store` (the same object), where a paused run waits. */
  loop: AgentLoop<Deps, any>;
  /** The loop's `RunStore`: the server's own copy of each chat's run. */
  store: RunStore;
  /**
   * The run id of a chat (default: the chat's id, as `useChat` sends it). In an app with users,
   * scope it to the signed-in user (`(chatId) => \`${user.id}/${chatId}\``), so that nobody can
   * answer a run of another user's chat by sending its id.
   */
  runId?: ((chatId: string) => string | Promise<string>) | undefined;
  /** The run's deps for this request (e.g. the signed-in user); default: the loop's. */
  deps?: Deps | undefined;
  /** Aborts the run (default: the request's signal: the browser's Stop, or a closed tab). */
  signal?: AbortSignal | undefined;
  /** What the chat is shown of each call's output (redact here); the model reads it whole. */
  toolOutput?: ToolOutputView | undefined;
  /** The `error` chunk's text when the run fails; default "the run failed", never the error. */
  errorText?: ((error: unknown) => string) | undefined;
  /**
   * Told of each run that fails, and of each request that fails other than by a refusal (a
   * misconfigured loop, a store that is down): the server's log. Default: `console.error`.
   */
  onError?: ((error: unknown) => void) | undefined;
  /** The largest body taken, in bytes (default 4 MB); a larger one is a 413. */
  maxBodyBytes?: number | undefined;
}

const KEYS = [
  "loop",
  "store",
  "runId",
  "deps",
  "signal",
  "toolOutput",
  "errorText",
  "onError",
  "maxBodyBytes",
] as const;
const DEFAULT_MAX_BODY = 4 * 1024 * 1024;
const WHERE = "chatResponse()";

/**
 * Answers a `useChat` request (the AI SDK's chat protocol) with a tollgate run, as the UI message
 * stream. A new user message starts a run of the chat's transcript (`fromUIMessages`) under the
 * chat's run id. A paused run is continued only from the state the server stored: the browser's
 * answers — an approval (`addToolApprovalResponse`) whose id was issued for the waiting call in
 * this pause, a client-side tool's output (`addToolOutput`) — become the resume's decisions, and
 * anything that does not fit (a replayed, stale or forged approval, other args, a missing answer)
 * is a 409 that runs nothing. Bad requests are 4xx with a text body (`useChat` shows it as the
 * error's message). The browser never gets a state, a signature, a digest or a stack.
 *
 * @example
 * export const POST = (request: Request) => chatResponse(request, { loop, store });
 */
export async function chatResponse<Deps>(
  request: Request,
  options: ChatResponseOptions<Deps>,
): Promise<Response> {
  checkOptions(options);
  try {
    return await respond(request, options);
  } catch (error) {
    if (error instanceof ChatRefusal) return refused(error.status, error.message);
    if (error instanceof ResumeError) return refused(409, `${error.message}; nothing ran`);
    if (error instanceof StoreError && /already running/.test(error.message)) {
      return refused(409, stillRunning().message);
    }
    return refused(500, failed(error, options));
  }
}

/** A failure's text for the browser, once the server's log (`onError`) has the error. */
function failed<Deps>(error: unknown, options: ChatResponseOptions<Deps>): string {
  try {
    (options.onError ?? logged)(error);
  } catch {
    // A failing log must not turn a failed run into a failed response.
  }
  return shownError(error, options.errorText);
}

const logged = (error: unknown) => console.error("tollgate/ui: a chat's run failed:", error);

async function respond<Deps>(
  request: Request,
  options: ChatResponseOptions<Deps>,
): Promise<Response> {
  const { loop, store, deps } = options;
  const { chatId, messages } = await readChatRequest(
    request,
    options.maxBodyBytes ?? DEFAULT_MAX_BODY,
  );
  const runId = await runIdOf(chatId, options);
  const signal = options.signal ?? request.signal;
  const stored = await store.get(runId);
  const last = messages[messages.length - 1] as UIMessageInput;
  let events: ReturnType<typeof loop.stream>;
  let answeredByPage = new Set<string>();
  if (last.role === "assistant") {
    const decisions = await answersOf(stored, last);
    answeredByPage = new Set((stored?.external ?? []).map(chatCallId));
    events = loop.resumeStream(
      runId,
      decisions,
      deps === undefined ? { signal } : { signal, deps },
    );
  } else {
    const input = historyOf(messages); // before makeRoom: a bad request deletes nothing
    await makeRoom(store, runId, stored);
    events = loop.stream(input, deps === undefined ? { runId, signal } : { runId, signal, deps });
  }
  // The run's first event, awaited here: a resume's checks and a new run's lease come before
  // it, so a refusal is a status, not a stream that ends in an error chunk.
  await events.ready();
  const iterator = events[Symbol.asyncIterator]();
  const first = await iterator.next();
  const checked = storedPauses(first, iterator, store, runId);
  const errorText = (error: unknown) => failed(error, options);
  const shown = { toolOutput: options.toolOutput, errorText, signal };
  return uiStreamResponse(chunkStream(WHERE, checked, shown, answeredByPage));
}

/**
 * Makes way for a new run of the chat. A paused run must be answered first (409). A run that
 * stopped before it finished (the browser's Stop, a closed tab, a crash) left a checkpoint: the
 * new message supersedes it, so it is deleted — unless it is still running (409).
 */
async function makeRoom(
  store: RunStore,
  runId: string,
  stored: RunState | undefined,
): Promise<void> {
  if (stored?.status === "needs_approval" || stored?.status === "needs_results") {
    const waiting = [...(stored.pending ?? []), ...(stored.external ?? [])].map(
      (call) => `${call.toolName} (${chatCallId(call)})`,
    );
    throw new ChatRefusal(
      409,
      `the chat's run waits for an answer to ${waiting.join(", ")}: answer it in the chat before sending a new message`,
    );
  }
  if (stored?.status !== "running") return;
  if (typeof store.delete !== "function") {
    throw new ChatRefusal(
      409,
      "the chat's last run stopped before it finished, and the store cannot delete its checkpoint (it has no `delete`): delete it, then send the message again",
    );
  }
  if (!(await store.delete(runId))) throw stillRunning();
}

const stillRunning = () =>
  new ChatRefusal(
    409,
    "the chat's run is still running (or was stopped a moment ago and its tools are finishing): send the message again in a moment",
  );

/** The chat's messages as the run's transcript; what the conversion cannot take is a 400. */
function historyOf(messages: UIMessageInput[]) {
  try {
    return fromUIMessages(messages);
  } catch (error) {
    if (error instanceof TypeError) throw new ChatRefusal(400, error.message);
    throw error;
  }
}

/**
 * The run's events, its end checked against the store: a pause the store does not hold could
 * never be resumed (the loop was built without this store), so the chat is not asked to answer
 * it; the run fails instead, saying so.
 */
async function* storedPauses(
  first: IteratorResult<LoopEvent>,
  rest: AsyncIterator<LoopEvent>,
  store: RunStore,
  runId: string,
): AsyncGenerator<LoopEvent> {
  let next = first;
  try {
    for (; !next.done; next = await rest.next()) {
      const event = next.value;
      if (
        event.type === "run-finish" &&
        (event.status === "needs_approval" || event.status === "needs_results")
      ) {
        const held = await store.get(runId);
        if (held?.stateId !== event.result.state.stateId) {
          throw new TypeError(
            `${WHERE}: the run paused, but the store given to chatResponse() does not hold its state: build the AgentLoop with the same \`store\``,
          );
        }
      }
      yield event;
    }
  } finally {
    // Stopped early (the page went away, or the check above failed): abandon the run, unawaited.
    if (!next.done) Promise.resolve(rest.return?.()).catch(() => {});
  }
}

async function runIdOf<Deps>(chatId: string, options: ChatResponseOptions<Deps>): Promise<string> {
  if (options.runId === undefined) return chatId;
  const runId = await options.runId(chatId);
  if (typeof runId !== "string" || runId === "") {
    throw new TypeError(
      `${WHERE}: runId(chatId) must give a non-empty string, got ${kindOf(runId)}`,
    );
  }
  return runId;
}

function checkOptions<Deps>(options: ChatResponseOptions<Deps>): void {
  checkKeys(`${WHERE} options`, options, KEYS);
  const { loop, store, maxBodyBytes } = options;
  if (
    !isPlainObject(options) ||
    typeof (loop as { stream?: unknown } | undefined)?.stream !== "function"
  ) {
    throw new TypeError(`${WHERE}: \`loop\` must be an AgentLoop, got ${kindOf(loop)}`);
  }
  if (typeof (store as { get?: unknown } | undefined)?.get !== "function") {
    throw new TypeError(`${WHERE}: \`store\` must be the loop's RunStore, got ${kindOf(store)}`);
  }
  for (const name of ["runId", "toolOutput", "errorText", "onError"] as const) {
    const value = options[name];
    if (value !== undefined && typeof value !== "function") {
      throw new TypeError(`${WHERE}: \`${name}\` must be a function, got ${kindOf(value)}`);
    }
  }
  if (maxBodyBytes !== undefined && !(Number.isInteger(maxBodyBytes) && maxBodyBytes > 0)) {
    throw new TypeError(
      `${WHERE}: maxBodyBytes must be a positive whole number of bytes, got ${kindOf(maxBodyBytes)}`,
    );
  }
}

const refused = (status: number, message: string) =>
  new Response(message, { status, headers: { "content-type": "text/plain; charset=utf-8" } });
