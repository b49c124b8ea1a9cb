import type { Message } from "./types/messages.js";
import type { FinishReason } from "./types/provider.js";
import type { UnsettledCall } from "./types/step-record.js";

/** Shared by every copy of tollgate in a process (ESM and CommonJS builds). */
const TOLLGATE = Symbol.for("tollgate.error-class");

/**
 * Base of every error tollgate throws. Errors that end a run carry `messages`, the transcript
 * so far, so the caller can inspect or continue the conversation. A field without a value is
 * absent, not `undefined`, so a logged error shows only what it has.
 */
export class TollgateError extends Error {
  /** The transcript up to the failure, when the error ended a run. */
  declare messages?: Message[];

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
  }

  /**
   * `instanceof` also knows the errors of tollgate's other build: an app that loads the ESM
   * entry in one file and the CommonJS entry in another has two copies of every class, and a
   * `RetryError` from one must still be a `RetryError` to the other (else it reads as a crash).
   * Such an error matches when a class of the same name, marked as tollgate's, is on its chain.
   */
  static override [Symbol.hasInstance](value: unknown): boolean {
    // biome-ignore lint/complexity/noThisInStatic: `this` is the class instanceof asks about (a subclass too)
    if (Function.prototype[Symbol.hasInstance].call(this, value)) return true;
    if (typeof value !== "object" || value === null) return false;
    for (
      let proto = Object.getPrototypeOf(value);
      proto !== null;
      proto = Object.getPrototypeOf(proto)
    ) {
      const type = (proto as { constructor?: unknown }).constructor;
      if (
        typeof type === "function" &&
        (type as { [TOLLGATE]?: unknown })[TOLLGATE] === true &&
        // biome-ignore lint/complexity/noThisInStatic: as above
        type.name === this.name
      ) {
        return true;
      }
    }
    return false;
  }

  /** Marks tollgate's error classes (in every build), for `instanceof` across builds. */
  static readonly [TOLLGATE] = true;
}

/**
 * Two tools share a name: in one toolset, or in the tools of one step (from `prepareStep` or an
 * MCP server's new listing, whose error is the subclass `McpToolNameError`). The step does not start.
 */
export class DuplicateToolError extends TollgateError {
  constructor(
    readonly toolName: string,
    message = `a tool named "${toolName}" is already in the toolset; tool names must be unique`,
  ) {
    super(message);
  }
}

/** A tool name was asked for that the toolset does not hold. */
export class UnknownToolError extends TollgateError {
  constructor(
    readonly toolName: string,
    readonly available: readonly string[],
  ) {
    super(
      `no tool named "${toolName}" in the toolset (it has: ${available.join(", ") || "no tools"})`,
    );
  }
}

/**
 * A tool failed (bad args, `RetryError`) more often than its `maxRetries` allows, or the model
 * called a tool that is not available more often than the loop's `maxRetries` allows
 * (`unavailable: true`).
 */
export class ToolRetriesExceededError extends TollgateError {
  /** True when the tool was not callable and the loop's `maxRetries` ran out. */
  readonly unavailable: boolean;

  constructor(
    readonly toolName: string,
    readonly maxRetries: number,
    options?: { cause?: unknown; unavailable?: boolean },
  ) {
    super(
      options?.unavailable
        ? `the model called ${toolName === "" ? "a tool without a name" : `tool "${toolName}"`}, which is not available, more often than the loop's maxRetries (${maxRetries}) allows; offer the tool or raise the loop's maxRetries`
        : `tool "${toolName}" failed more than its maxRetries (${maxRetries}) allows; raise maxRetries or fix the cause${options?.cause === undefined ? "" : ` (the last failure: ${messageOf(options.cause)})`}`,
      options,
    );
    this.unavailable = options?.unavailable ?? false;
  }
}

/** A tool threw while the loop runs with `toolErrors: "throw"`. */
export class ToolExecutionError extends TollgateError {
  constructor(
    readonly toolName: string,
    readonly toolCallId: string,
    options: { cause: unknown },
  ) {
    super(`tool "${toolName}" (call ${toolCallId}) threw: ${messageOf(options.cause)}`, options);
  }
}

/**
 * A hook threw or answered with something that is not a verdict: a pre-call hook (or args it
 * returned that its tool's schema rejects; no tool of the step ran), a post-call hook, or a
 * model-side hook (`by` names it, "pre-model:0"; `toolName` and `toolCallId` are then "").
 */
export class HookError extends TollgateError {
  /** A model-side hook's name ("pre-model:<i>" or "post-model:<i>"); absent for a tool hook. */
  declare readonly by: string | undefined;

  constructor(
    message: string,
    readonly hookIndex: number,
    readonly toolName: string,
    readonly toolCallId: string,
    options?: { cause?: unknown; by?: string },
  ) {
    super(message, options);
    if (options?.by !== undefined) (this as { by?: string }).by = options.by;
  }
}

/**
 * A model-side hook blocked the run's model call: a `preModelCall` hook its request (phase
 * "request": it never reached the provider), or a `postModelCall` hook its response (phase
 * "response": nothing of it reached the transcript, the tools or the listeners). A tripwire:
 * the run rejects; `messages` is the transcript before the blocked call.
 */
export class ModelCallBlockedError extends TollgateError {
  constructor(
    /** Which side was blocked: the request before the provider, or the response after it. */
    readonly phase: "request" | "response",
    /** The hook's `block` text, or the default "the model request was blocked". */
    readonly reason: string,
    /** The 0-based step whose model call was blocked. */
    readonly step: number,
    /** The hook that blocked: "pre-model:<i>" or "post-model:<i>". */
    readonly by: string,
  ) {
    const hook = `${by.startsWith("pre") ? "preModelCall" : "postModelCall"}[${by.slice(by.indexOf(":") + 1)}]`;
    const what =
      phase === "request"
        ? "the request was not sent"
        : "nothing of the response reached the transcript or the tools";
    super(`${hook} blocked the model ${phase} of step ${step}: ${reason}; ${what}`);
  }
}

/**
 * A policy callback (`decideToolCall`, `prepareStep`, `endsRun`, `executeTool`) or a tool's
 * `needsApproval` threw, or answered with something that is not a valid answer. The run
 * rejects; the original error, if any, is the `cause`.
 */
export class PolicyError extends TollgateError {
  /** The tool the callback was asked about, when there was one. */
  declare readonly toolName: string | undefined;

  constructor(
    message: string,
    /** The callback that failed, e.g. "decideToolCall" or "needsApproval". */
    readonly callback: string,
    toolName: string | undefined,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    if (toolName !== undefined) (this as { toolName?: string }).toolName = toolName;
  }
}

/** A `RunStore` failed or refused a write (a lost lease, a stale fencing token). */
export class StoreError extends TollgateError {
  /**
   * True when another process holds the run's lease (a `run()` with a runId that is running
   * elsewhere): the same call may succeed later. False for every other store failure.
   */
  readonly retryable: boolean;

  constructor(
    message: string,
    /** The store method that failed: "get", "put", "claim", "acquire", "renew" or "release". */
    readonly operation: string,
    options?: { cause?: unknown; retryable?: boolean },
  ) {
    super(message, options);
    this.retryable = options?.retryable === true;
  }
}

/** A tool returned a value JSON cannot carry, while the loop runs with `toolErrors: "throw"`. */
export class ToolOutputError extends TollgateError {
  constructor(
    message: string,
    readonly toolName: string,
    readonly toolCallId: string,
  ) {
    super(message);
  }
}

/** The run's structured output failed validation more often than the loop's `maxRetries` allows. */
export class OutputValidationError extends TollgateError {}

/**
 * The model refused to answer a run with structured output: its response ended with finish
 * reason `content-filter` (a provider's content filter, or its refusal field: the adapters
 * report both so). A refusal is not an answer to re-prompt for, so the run ends at once; the
 * transcript (`messages`) ends with the refused response.
 */
export class ModelRefusalError extends TollgateError {
  /** What the model said with its refusal (the provider's refusal message), when it said anything. */
  declare readonly refusal: string | undefined;

  constructor(
    /** The refused response's finish reason. */
    readonly finishReason: FinishReason,
    /** The 0-based step whose response was refused. */
    readonly step: number,
    refusal?: string,
  ) {
    super(
      `the model refused to answer (finish reason "${finishReason}", step ${step})${refusal ? `: ${JSON.stringify(refusal)}` : ""}; a refusal is not retried: rephrase the task or change what the run asks for, and read error.messages for the transcript`,
    );
    if (refusal) (this as { refusal?: string }).refusal = refusal;
  }
}

/** A paused run could not be resumed; nothing ran. */
export class ResumeError extends TollgateError {
  /**
   * True when the run is still running in another process (its lease is live): the same
   * resume may succeed once that process pauses, or its lease runs out after a crash. A queue
   * worker retries these later and fails the job for good on any other `ResumeError`.
   */
  readonly retryable: boolean;

  constructor(message: string, options?: { cause?: unknown; retryable?: boolean }) {
    super(message, options);
    this.retryable = options?.retryable === true;
  }
}

/** A model provider answered with an error, or could not be reached. */
export class ProviderError extends TollgateError {
  /** HTTP status, when there was a response. */
  declare readonly status: number | undefined;
  /** The response body as text, when there was one. */
  declare readonly body: string | undefined;
  /** Whether trying again may succeed (408, 409, 429, 5xx, network errors). */
  readonly retryable: boolean;
  /** The provider's name, e.g. "openai". */
  readonly provider: string;

  constructor(
    message: string,
    details: {
      status?: number;
      body?: string;
      retryable: boolean;
      provider: string;
      cause?: unknown;
    },
  ) {
    super(message, { cause: details.cause });
    const self = this as { status?: number; body?: string };
    if (details.status !== undefined) self.status = details.status;
    if (details.body !== undefined) self.body = details.body;
    this.retryable = details.retryable;
    this.provider = details.provider;
  }
}

/**
 * A model call took longer than the run's `modelTimeoutMs`: the call was aborted (its signal
 * aborts with this error) and the run rejects with it. It is a `ProviderError` (`retryable`),
 * so code that retries a provider's failures retries this one too.
 */
export class ModelTimeoutError extends ProviderError {
  constructor(
    /** The `modelTimeoutMs` that ran out. */
    readonly timeoutMs: number,
    provider: string,
    /** The step whose model call timed out (0-based). */
    readonly step: number,
  ) {
    super(
      `the model call of step ${step} (provider ${provider}) timed out after ${timeoutMs} ms (modelTimeoutMs); raise modelTimeoutMs, or try again`,
      { retryable: true, provider },
    );
  }
}

/**
 * The run took longer than its `timeoutMs`: it was aborted as if by its signal, with this error
 * as the reason, and rejects with it. Tools get the aborted signal; calls that had started and
 * not settled are listed on `unsettledCalls` (their side effects are uncertain).
 */
export class RunTimeoutError extends TollgateError {
  /** Calls that had started and not settled when the run timed out. */
  declare unsettledCalls?: UnsettledCall[];

  constructor(
    /** The `timeoutMs` that ran out. */
    readonly timeoutMs: number,
  ) {
    super(
      `the run timed out after ${timeoutMs} ms (timeoutMs); it was aborted, and calls that had started are listed on unsettledCalls`,
    );
  }
}

/**
 * Thrown by a tool's `execute` to ask the model to try again with other args. The message goes
 * to the model; it counts against the tool's `maxRetries`.
 */
export class RetryError extends TollgateError {}

/**
 * Thrown by a policy's `executeTool` for a call the model should read as failed, when the tool
 * itself did not throw in this process: a durable engine replaying a failure it recorded, or a
 * call that started in a process that stopped (`outcomeUnknown: true`: running it again could
 * repeat its side effects). The message is the call's error result. An outcome-unknown call is
 * no developer's bug: it gets no `tool-error` event and never rejects the run.
 */
export class ToolFailureError extends TollgateError {
  /** True: the call started in a process that stopped, and whether it took effect is unknown. */
  readonly outcomeUnknown: boolean;

  constructor(message: string, options?: { outcomeUnknown?: boolean; cause?: unknown }) {
    super(message, options);
    this.outcomeUnknown = options?.outcomeUnknown ?? false;
  }
}

/**
 * The message of anything thrown, never throwing itself: an `Error`'s message, a string as
 * it is, and for other values their `String()` form when they have one.
 */
export function messageOf(error: unknown): string {
  try {
    if (error instanceof Error && typeof error.message === "string") return error.message;
    if (typeof error === "string") return error;
    return String(error);
  } catch {
    return `a thrown ${describeValue(error)} that cannot be shown as text`;
  }
}

/** "null", "array", "object", "function" or the typeof name, for messages about bad answers. */
export function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}
