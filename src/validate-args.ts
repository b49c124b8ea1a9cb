import type { ValidationResult } from "./schema.js";
import { formatIssues } from "./schema.js";
import type { Tool } from "./tool.js";

/** Parsed and validated args (`input` as given, `value` as parsed), or what is wrong with them. */
export type ArgsResult =
  | { ok: true; value: unknown; input: unknown }
  | { ok: false; message: string };

/** Parses the model's JSON text and validates it; an empty text means "no args" (`{}`). */
export function parseArgs(tool: Tool<any>, rawArgs: string): ArgsResult | Promise<ArgsResult> {
  let value: unknown;
  try {
    value = rawArgs.trim() === "" ? {} : JSON.parse(rawArgs);
  } catch (error) {
    return {
      ok: false,
      message: `invalid JSON in the arguments for tool ${tool.name}: ${(error as Error).message}. Send the arguments again as one JSON object.`,
    };
  }
  return validateArgs(tool, value);
}

/** Validates a value against the tool's input schema; the parse output is what the tool gets. */
export function validateArgs(tool: Tool<any>, value: unknown): ArgsResult | Promise<ArgsResult> {
  const result = tool.input["~standard"].validate(value);
  return result instanceof Promise
    ? result.then((settled) => toArgsResult(tool, value, settled))
    : toArgsResult(tool, value, result);
}

function toArgsResult(
  tool: Tool<any>,
  input: unknown,
  result: ValidationResult<unknown>,
): ArgsResult {
  if (!result.issues) return { ok: true, value: result.value, input };
  return {
    ok: false,
    message: `invalid arguments for tool ${tool.name}: ${formatIssues(result.issues)}. Fix them and call the tool again.`,
  };
}
