import { DuplicateToolError, messageOf, PolicyError } from "../errors.js";
import { isPromise, later, type MaybePromise } from "./maybe-promise.js";

/**
 * Calls one policy callback (or a tool's `needsApproval`) and reads its answer with `read`,
 * failing closed: a throw, a rejection, or an answer `read` refuses becomes a `PolicyError`
 * naming the callback and the tool, with the original as `cause`. Synchronous while the
 * callback is.
 */
export function callPolicy<T>(
  callback: string,
  toolName: string | undefined,
  invoke: () => unknown,
  read: (answer: unknown) => { ok: true; value: T } | { ok: false; problem: string },
): MaybePromise<T> {
  let answer: unknown;
  let isLater: boolean;
  try {
    answer = invoke();
    isLater = isPromise(answer); // reads `then`, which an answer's getter may make throw
  } catch (error) {
    throw threw(callback, toolName, error);
  }
  const take = (value: unknown) => {
    let read_: ReturnType<typeof read>;
    try {
      read_ = read(value); // reads the answer's keys, which getters or a Proxy may make throw
    } catch (error) {
      throw threw(callback, toolName, error);
    }
    return accept(callback, toolName, read_);
  };
  if (isLater) {
    return later(answer as PromiseLike<unknown>, take, (error: unknown) => {
      throw threw(callback, toolName, error);
    });
  }
  return take(answer);
}

function accept<T>(
  callback: string,
  toolName: string | undefined,
  answer: { ok: true; value: T } | { ok: false; problem: string },
): T {
  if (answer.ok) return answer.value;
  throw new PolicyError(`${callback}${onTool(toolName)} ${answer.problem}`, callback, toolName);
}

/**
 * The `PolicyError` for a callback that threw (or rejected). A name clash the callback
 * reported (`DuplicateToolError`, such as an MCP toolset's `McpToolNameError` from its
 * `prepareStep`) is the contract's own refusal, not a fault of the callback: it reaches the
 * caller as it is, so `instanceof` finds it.
 */
export function threw(
  callback: string,
  toolName: string | undefined,
  error: unknown,
): PolicyError | DuplicateToolError {
  if (error instanceof DuplicateToolError) return error;
  return new PolicyError(
    `${callback}${onTool(toolName)} threw: ${messageOf(error)}`,
    callback,
    toolName,
    { cause: error },
  );
}

const onTool = (toolName: string | undefined) =>
  toolName === undefined ? "" : ` (tool ${toolName})`;

/** Reads a boolean answer (`needsApproval`, `endsRun`). */
export function readBoolean(
  answer: unknown,
): { ok: true; value: boolean } | { ok: false; problem: string } {
  return typeof answer === "boolean"
    ? { ok: true, value: answer }
    : { ok: false, problem: `returned ${shortForm(answer)}; return true or false` };
}

/** A short, safe rendering of an answer for an error message. */
export function shortForm(value: unknown): string {
  try {
    if (typeof value === "string") return JSON.stringify(value.slice(0, 60));
    if (value === undefined || typeof value === "function" || typeof value === "symbol") {
      return String(
        typeof value === "function" ? "a function" : value === undefined ? "undefined" : "a symbol",
      );
    }
    const text = JSON.stringify(value);
    return text === undefined ? typeof value : text.length > 80 ? `${text.slice(0, 77)}...` : text;
  } catch {
    return `${typeof value === "object" ? "an" : "a"} ${typeof value} that cannot be shown`;
  }
}
