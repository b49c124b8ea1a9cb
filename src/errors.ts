import type { Message } from "./messages.js";

/**
 * Base of every error tollgate throws. Errors that end a run carry `messages`, the transcript
 * so far, so the caller can inspect or continue the conversation.
 */
export class TollgateError extends Error {
  /** The transcript up to the failure, when the error ended a run. */
  messages?: Message[];

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** Two tools share a name in one toolset. */
export class DuplicateToolError extends TollgateError {
  constructor(readonly toolName: string) {
    super(`a tool named "${toolName}" is already in the toolset; tool names must be unique`);
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

/** A tool failed (bad args, `RetryError`) more often than its `maxRetries` allows. */
export class ToolRetriesExceededError extends TollgateError {
  constructor(
    readonly toolName: string,
    readonly maxRetries: number,
    options?: { cause?: unknown },
  ) {
    super(
      `tool "${toolName}" failed more than its maxRetries (${maxRetries}) allows; raise maxRetries or fix the cause`,
      options,
    );
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

/** A pre-call hook threw, or returned args its tool's schema rejects. No tool of the step ran. */
export class HookError extends TollgateError {
  constructor(
    message: string,
    readonly hookIndex: number,
    readonly toolName: string,
    readonly toolCallId: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** A paused run could not be resumed; nothing ran. */
export class ResumeError extends TollgateError {}

/** A model provider answered with an error, or could not be reached. */
export class ProviderError extends TollgateError {
  /** HTTP status, when there was a response. */
  readonly status: number | undefined;
  /** The response body as text, when there was one. */
  readonly body: string | undefined;
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
    this.status = details.status;
    this.body = details.body;
    this.retryable = details.retryable;
    this.provider = details.provider;
  }
}

/**
 * Thrown by a tool's `execute` to ask the model to try again with other args. The message goes
 * to the model; it counts against the tool's `maxRetries`.
 */
export class RetryError extends TollgateError {}

/** The message of anything thrown. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
