import { RetryError } from "../errors.js";
import { freezeJson } from "../tools/args.js";
import type { Message } from "../types/messages.js";
import { andThen, type MaybePromise } from "../util/maybe-promise.js";
import { callPolicy, shortForm } from "../util/policy-call.js";

/**
 * What an output validator (`output.validate`) gets beside the output: the run's `deps`, the
 * transcript so far, the step that gave the answer and the run's id. `messages` are frozen
 * copies, made only when read: a validator that does not read them costs nothing.
 */
export interface OutputValidatorContext<Deps = unknown> {
  readonly deps: Deps;
  /** The run's messages up to the answer (its own assistant message included), frozen. */
  readonly messages: readonly Message[];
  /** The 0-based step whose model response gave the answer. */
  readonly step: number;
  readonly runId: string;
}

/**
 * An output validator's answer: `undefined` (or nothing) accepts the output; a string, or
 * `{ retry: string }`, refuses it and is sent to the model to try again (counted against the
 * loop's `maxRetries`, as a failed schema is). Anything else rejects the run with `PolicyError`.
 */
export type OutputVerdict = undefined | void | string | { retry: string };

/**
 * Checks the final answer after its schema did, with what a schema cannot reach: the run's
 * `deps` (a database, say) and its transcript. Runs once for every answer the schema accepted,
 * synchronously when it is sync. A throw ends the run with `PolicyError` (`callback`
 * "output.validate", the thrown error as `cause`).
 *
 * @example
 * output: {
 *   schema: Invoice,
 *   validate: async (invoice, { deps }) =>
 *     (await deps.db.customerExists(invoice.customer)) ? undefined : `no customer ${invoice.customer}`,
 * }
 */
export type OutputValidator<Output = unknown, Deps = any> = (
  output: Output,
  ctx: OutputValidatorContext<Deps>,
) => OutputVerdict | Promise<OutputVerdict>;

/** The run, as far as a validator's context reads it. */
interface RunView<Deps> {
  readonly runId: string;
  readonly messages: readonly Message[];
  readonly config: { readonly deps: Deps };
}

const CALLBACK = "output.validate";
const DEFAULT_RETRY = "your final answer was refused by a check of the output; try again";

/**
 * Asks the validator about one answer the schema accepted: the message for the model when it
 * refuses it, else `undefined`. A throw, a rejection or an answer that is neither a verdict
 * nor `undefined` is a `PolicyError` (fail closed: never accepted by default). Synchronous
 * while the validator is.
 */
export function refusalOf<Deps>(
  validate: OutputValidator<unknown, Deps>,
  output: unknown,
  run: RunView<Deps>,
  step: number,
): MaybePromise<string | undefined> {
  return callPolicy(CALLBACK, undefined, () => validate(output, contextOf(run, step)), readVerdict);
}

/**
 * The final-answer tool's output ("tool" mode) once the validator accepted it; a refusal is
 * thrown as a `RetryError`, which the loop sends back as the call's error result and counts.
 */
export function acceptedOrRetry<Deps>(
  validate: OutputValidator<unknown, Deps>,
  output: unknown,
  run: RunView<Deps>,
  step: number,
): MaybePromise<unknown> {
  return andThen(refusalOf(validate, output, run, step), (refusal) => {
    if (refusal !== undefined) throw new RetryError(refusal);
    return output;
  });
}

/** Reads a verdict: `undefined` accepts; a string or `{ retry: string }` is a retry. */
function readVerdict(
  answer: unknown,
): { ok: true; value: string | undefined } | { ok: false; problem: string } {
  if (answer === undefined) return { ok: true, value: undefined };
  const retry =
    typeof answer === "string"
      ? answer
      : isRetry(answer)
        ? (answer as { retry: string }).retry
        : undefined;
  if (retry !== undefined) return { ok: true, value: retry === "" ? DEFAULT_RETRY : retry };
  return {
    ok: false,
    problem: `returned ${shortForm(answer)}; return undefined (or nothing) to accept the output, or a string or { retry: string } to send the model a message and let it try again`,
  };
}

/** `{ retry: string }` and nothing more (a plain object: a class instance is not a verdict). */
function isRetry(answer: unknown): boolean {
  if (typeof answer !== "object" || answer === null) return false;
  const proto = Object.getPrototypeOf(answer);
  if (proto !== Object.prototype && proto !== null) return false;
  const keys = Reflect.ownKeys(answer);
  return (
    keys.length === 1 &&
    keys[0] === "retry" &&
    typeof (answer as { retry: unknown }).retry === "string"
  );
}

/** The validator's context: the messages as they are now, copied deeply only when read. */
function contextOf<Deps>(run: RunView<Deps>, step: number): OutputValidatorContext<Deps> {
  // Messages are never changed once appended: the list as it is now, copied when read.
  const messagesNow = run.messages.slice();
  let messages: readonly Message[] | undefined;
  return {
    deps: run.config.deps,
    get messages() {
      messages ??= freezeJson(structuredClone(messagesNow)) as readonly Message[];
      return messages;
    },
    step,
    runId: run.runId,
  };
}
