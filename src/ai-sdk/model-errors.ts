import { ProviderError, TollgateError } from "tollgate";
import { redactKeyShapes } from "../util/key-shapes.js";
import { isPlainObject } from "../util/values.js";

/** The fields of what a model threw that `fromAISDK` reads (an `APICallError`'s, when it is one). */
export const fieldsOf = (error: unknown): Record<string, unknown> =>
  isPlainObject(error) || error instanceof Error ? (error as Record<string, unknown>) : {};

const messageOf = (error: unknown): string =>
  error instanceof Error ? error.message : typeof error === "string" ? error : String(error);

/**
 * What a model threw or streamed as an error, as a `ProviderError`: an AI SDK `APICallError`
 * keeps its `statusCode` (as `status`), `responseBody` (as `body`) and `isRetryable` (as
 * `retryable`); anything else is not retryable. The message names the error's `name` and says
 * its message. Nothing of the request is kept: the error is not the `cause` (an `APICallError`
 * holds the whole request body, the prompt included, and the URL), and message and body are
 * scrubbed of anything shaped like an API key (`redactKeyShapes`: the model's key is not known
 * here). A tollgate error passes unchanged.
 */
export function errorOf(provider: string, error: unknown): Error {
  if (error instanceof TollgateError) return error;
  const fields = fieldsOf(error);
  const details: ConstructorParameters<typeof ProviderError>[1] = {
    retryable: fields.isRetryable === true,
    provider,
  };
  if (typeof fields.statusCode === "number") details.status = fields.statusCode;
  if (typeof fields.responseBody === "string") details.body = redactKeyShapes(fields.responseBody);
  const status = details.status === undefined ? "" : ` (HTTP ${details.status})`;
  const name =
    error instanceof Error && error.name !== "Error" && error.name !== ""
      ? `${redactKeyShapes(error.name)}: `
      : "";
  return new ProviderError(
    `AI SDK model "${provider}" failed${status}: ${name}${redactKeyShapes(messageOf(error))}`,
    details,
  );
}
