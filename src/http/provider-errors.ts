import { ProviderError } from "tollgate";
import { isRetryableStatus } from "./retry.js";

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

/** Replaces every occurrence of `secret` (an API key) in `value`. */
export const redact = (value: string, secret: string | undefined): string =>
  secret && secret.length >= 8 ? value.split(secret).join("[redacted]") : value;

/** A short single-line excerpt of a body that holds no structured error. */
const excerpt = (body: string): string => {
  const line = body.replace(/\s+/g, " ").trim();
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
};

/**
 * The `ProviderError` for an HTTP error response, worded with the provider's own message.
 * `retryable` comes from the caller (status code and `x-should-retry`).
 */
export function httpError(
  provider: string,
  status: number,
  body: string,
  retryable: boolean,
  secret: string | undefined,
): ProviderError {
  const { message, kind } = errorDetails(body);
  const said = message ?? (excerpt(body) || "no error message in the response");
  const text = `${provider} returned HTTP ${status}${kind ? ` ${kind}` : ""}: ${said}`;
  return new ProviderError(redact(text, secret), {
    status,
    body: redact(body, secret),
    retryable,
    provider,
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
