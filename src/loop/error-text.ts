import { PolicyError } from "../errors.js";
import type { FormatToolError, ToolErrorInfo } from "../types/tool-feedback.js";
import { shortForm, threw } from "../util/policy-call.js";

/**
 * The loop's `formatToolError`, checked: it gets a frozen copy of the info and must return a
 * string; a throw or anything else is `PolicyError`. Without one, the model reads `message`.
 */
export function errorText(format: FormatToolError | undefined): FormatToolError {
  if (!format) return (info) => info.message;
  return (info: ToolErrorInfo) => {
    let text: unknown;
    try {
      text = format(Object.freeze({ ...info }));
    } catch (error) {
      throw threw("formatToolError", info.toolName, error);
    }
    if (typeof text === "string") return text;
    throw new PolicyError(
      `formatToolError (tool ${info.toolName}) returned ${shortForm(text)}; return the text the model reads, a string`,
      "formatToolError",
      info.toolName,
    );
  };
}
