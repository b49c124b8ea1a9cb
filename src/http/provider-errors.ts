import { ProviderError } from "tollgate";
import { REDACTED } from "../util/secret-keys.js";
import { isRetryableStatus } from "./retry.js";
import { displayURL } from "./secrets.js";

/** What a provider says about an error: its message, its kind (type, code or status) and status. */
export interface ErrorDetails {
  message?: string;
  kind?: string;
  status?: number;
}

/** Error kinds that mean "try again later", for errors that arrive inside a stream. */
const RETRYABLE_KINDS = new Set([
  "overloaded_error",
  "api_error",
  "rate_limit_error",
  "timeout_error",
  "server_error",
  "UNAVAILABLE",
  "RESOURCE_EXHAUSTED",
  "INTERNAL",
  "DEADLINE_EXCEEDED",
]);

const text = (value: unknown): string | undefined =>
  typeof value === "string" && value !== "" ? value : undefined;

/**
 * Reads the provider's own message out of an error body: OpenAI `{error:{message,type,code}}`,
 * Anthropic `{type:"error",error:{type,message}}`, Google `{error:{code,message,status}}` (also
 * wrapped in an array), and the `{message}` / `{detail}` bodies of OpenAI-compatible servers.
 */
export function errorDetails(body: unknown): ErrorDetails {
  let value = body;
  if (typeof value === "string") {
    try {
      value = JSON.parse(value);
    } catch {
      return {};
    }
  }
  if (Array.isArray(value)) value = value[0];
  if (typeof value !== "object" || value === null) return {};
  const record = value as Record<string, unknown>;
  const error = record.error;
  if (typeof error === "object" && error !== null) {
    const e = error as Record<string, unknown>;
    const details: ErrorDetails = {};
    const message = text(e.message);
    const kind = text(e.type) ?? text(e.status) ?? text(e.code);
    if (message) details.message = message;
    if (kind) details.kind = kind;
    if (typeof e.status_code === "number") details.status = e.status_code;
    return details;
  }
  const message = text(error) ?? text(record.message) ?? text(record.detail);
  const kind = text(record.type) ?? text(record.code);
  return { ...(message && { message }), ...(kind && { kind }) };
}

/** Replaces every occurrence of each secret (an API key, a token) of 8 characters or more in `value`. */
export function redact(value: string, secrets: string | readonly string[] | undefined): string {
  let text = value;
  for (const secret of typeof secrets === "string" ? [secrets] : (secrets ?? [])) {
    if (secret.length >= 8) text = text.split(secret).join(REDACTED);
  }
  return text;
}

/** A short single-line excerpt of a body that holds no structured error. */
const excerpt = (body: string): string => {
  const line = body.replace(/\s+/g, " ").trim();
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
};

/**
 * The `ProviderError` for an HTTP error response, worded with the provider's own message.
 * `retryable` comes from the caller (status code and `x-should-retry`); `body` comes already
 * scrubbed of secrets.
 */
export function httpError(
  provider: string,
  status: number,
  body: string,
  retryable: boolean,
): ProviderError {
  const { message, kind } = errorDetails(body);
  const said = message ?? (excerpt(body) || "no error message in the response");
  const text = `${provider} returned HTTP ${status}${kind ? ` ${kind}` : ""}: ${said}`;
  return new ProviderError(text, { status, body, retryable, provider });
}

/** The status and content type of a response, for messages about an answer that cannot be read. */
export interface AnswerHead {
  status: number;
  contentType: string | null;
}

/** The first 200 characters of a body on one line, in quotes, or "empty". */
export const bodyStart = (body: string): string => {
  const line = body.replace(/\s+/g, " ").trim();
  if (line === "") return "empty";
  return `"${line.length > 200 ? `${line.slice(0, 200)}…` : line}"`;
};

/**
 * The `ProviderError` for a 2xx answer that is not what was asked for: an HTML login page from a
 * proxy, an empty body, JSON of another API, a whole JSON body where a stream was asked for. A
 * JSON body holding an `error` is the provider's own error (see `embeddedError`). Not retryable:
 * the same URL will answer the same way. `body` comes already scrubbed of secrets.
 *
 * @example
 * // openai sent HTTP 200 (text/html) instead of a chat completion (JSON with `choices`);
 * // check `baseURL`. Body: "<!doctype html><title>Sign in</title>"
 */
export function unusableAnswer(
  provider: string,
  head: AnswerHead,
  body: string,
  expected: string,
): ProviderError {
  const value = tryParse(body);
  if (typeof value === "object" && value !== null && "error" in value && value.error) {
    return embeddedError(provider, value, body);
  }
  const type = head.contentType ? `(${head.contentType})` : "(no content type)";
  return new ProviderError(
    `${provider} sent HTTP ${head.status} ${type} instead of ${expected}; check \`baseURL\`. Body: ${bodyStart(body)}`,
    { status: head.status, body, retryable: false, provider },
  );
}

const tryParse = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

/** One HTTP request as its errors name it. */
export interface HttpCall {
  /** The URL requested; errors name it as `displayURL` shows it, credentials redacted. */
  url: string;
  /** The API key and other credentials, scrubbed from everything an error carries. */
  secrets: readonly string[];
}

/** Whether an error or one of its causes mentions a secret. */
function mentions(error: unknown, secrets: readonly string[], depth = 0): boolean {
  if (!(error instanceof Error) || depth > 4) return false;
  const said = `${error.message}\n${error.stack ?? ""}`;
  if (redact(said, secrets) !== said) return true;
  return mentions(error.cause, secrets, depth + 1);
}

/**
 * The error as it leaves the transport: the request named at the end of its message, and every
 * secret scrubbed from message, body and cause (a cause that mentions one is replaced by a copy
 * with the secret redacted).
 */
export function callError(call: HttpCall, error: ProviderError): ProviderError {
  const { secrets } = call;
  const cause =
    error.cause instanceof Error && mentions(error.cause, secrets)
      ? new Error(redact(error.cause.message, secrets))
      : error.cause;
  const target = `POST ${displayURL(call.url)}`;
  return new ProviderError(`${redact(error.message, secrets)} (${target})`, {
    ...(error.status !== undefined && { status: error.status }),
    ...(error.body !== undefined && { body: redact(error.body, secrets) }),
    retryable: error.retryable,
    provider: error.provider,
    ...(cause !== undefined && { cause }),
  });
}

/**
 * The `ProviderError` for an error inside an HTTP 200 answer: an error event in a stream
 * (Anthropic `overloaded_error`, Groq `tool_use_failed`, Responses `error`) or an error object
 * in a JSON body. `status` is set only when the error carries one; `retryable` follows it, or
 * the error's kind.
 */
export function embeddedError(provider: string, payload: unknown, raw: string): ProviderError {
  const { message, kind, status } = errorDetails(payload);
  const text = `${provider} reported an error${kind ? ` (${kind})` : ""}: ${message ?? excerpt(raw)}`;
  const retryable =
    status !== undefined
      ? isRetryableStatus(status)
      : kind !== undefined && RETRYABLE_KINDS.has(kind);
  return new ProviderError(text, {
    ...(status !== undefined && { status }),
    body: raw,
    retryable,
    provider,
  });
}

/** The `ProviderError` for a stream that ended before its terminal event. */
export const truncatedStream = (provider: string, expected: string): ProviderError =>
  new ProviderError(
    `${provider} stream ended before ${expected}: the response is incomplete (the connection was cut or the server stopped early)`,
    { retryable: true, provider },
  );

/** The `ProviderError` for a response body or stream event that is not the JSON it should be. */
export const invalidJson = (provider: string, raw: string, cause: unknown): ProviderError =>
  new ProviderError(`${provider} sent invalid JSON: ${excerpt(raw)}`, {
    body: raw,
    retryable: false,
    provider,
    cause,
  });

/** Parses JSON from a provider, turning a syntax error into a `ProviderError`. */
export function parseJson(provider: string, raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch (error) {
    throw invalidJson(provider, raw, error);
  }
}

/**
 * Parses one stream event's data, which must be a JSON object: anything else (`null`, a number,
 * an array) is a `ProviderError`, not a `TypeError` from the parser that reads it next.
 */
export function parseEvent(provider: string, raw: string): Record<string, unknown> {
  const value = parseJson(provider, raw);
  if (typeof value === "object" && value !== null && !Array.isArray(value)) {
    return value as Record<string, unknown>;
  }
  throw new ProviderError(
    `${provider} sent a stream event that is not a JSON object: ${excerpt(raw)}`,
    {
      body: raw,
      retryable: false,
      provider,
    },
  );
}
