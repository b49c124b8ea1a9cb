import { shownValue } from "../util/option-keys.js";
import { kindOf } from "../util/values.js";

/** Checks a timeout option (`timeoutMs`, `modelTimeoutMs`): a positive number of milliseconds. */
export function checkTimeout(where: string, name: string, value: unknown): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "number" || !Number.isFinite(value) || value <= 0) {
    throw new TypeError(
      `${where}: \`${name}\` must be a positive number of milliseconds, got ${shownValue(value)}`,
    );
  }
  return value;
}

/** Checks a whole-number option; `where` names what took it ("AgentLoop", "run()"). */
export function wholeNumber(
  name: string,
  value: unknown,
  min: number,
  where = "AgentLoop",
): number {
  if (!Number.isInteger(value) || (value as number) < min) {
    throw new TypeError(
      `${where}: \`${name}\` must be a whole number >= ${min}, got ${shownValue(value)}`,
    );
  }
  return value as number;
}

/** Throws a `TypeError` unless `signal` is an AbortSignal or not given. */
export function checkSignal(where: string, signal: unknown): void {
  if (signal !== undefined && !(signal instanceof AbortSignal)) {
    throw new TypeError(`${where}: \`signal\` must be an AbortSignal, got ${kindOf(signal)}`);
  }
}
