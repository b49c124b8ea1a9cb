import { ProviderError, TollgateError } from "tollgate";
import { isPlainObject } from "../util/option-keys.js";

const messageOf = (error: unknown): string =>
  error instanceof Error ? error.message : typeof error === "string" ? error : String(error);

/**
 * What a model threw or streamed as an error, as a `ProviderError`: an AI SDK `APICallError`
 * keeps its `statusCode` (as `status`), `responseBody` (as `body`) and `isRetryable` (as
 * `retryable`); anything else is not retryable. The message is the error's own, never the
 * request (its URL or body); the error itself is the `cause`. A tollgate error passes unchanged.
 */
export function errorOf(provider: string, error: unknown): Error {
  if (error instanceof TollgateError) return error;
  const fields =
    isPlainObject(error) || error instanceof Error ? (error as Record<string, unknown>) : {};
  const details: ConstructorParameters<typeof ProviderError>[1] = {
    retryable: fields.isRetryable === true,
    provider,
    cause: error,
  };
  if (typeof fields.statusCode === "number") details.status = fields.statusCode;
  if (typeof fields.responseBody === "string") details.body = fields.responseBody;
  const status = details.status === undefined ? "" : ` (HTTP ${details.status})`;
  return new ProviderError(
    `AI SDK model "${provider}" failed${status}: ${messageOf(error)}`,
    details,
  );
}
