import type { ModelStreamPart } from "../provider.js";
import type { ResolvedOutput } from "./output-option.js";
import { parsePartialJson } from "./partial-json.js";

/**
 * Follows one model response's stream for the final answer taking shape: the text in
 * "native" and "prompted" modes, the final-answer tool's args in "tool" mode. `feed` returns
 * the partial output when a part changed it, else `undefined`.
 */
export function outputDeltas(output: ResolvedOutput): (part: ModelStreamPart) => unknown {
  let text = "";
  let index: number | undefined;
  let shown = "";
  const changed = (value: unknown) => {
    if (value === undefined) return undefined;
    const json = JSON.stringify(value);
    if (json === shown) return undefined;
    shown = json;
    return value;
  };
  return (part) => {
    if (output.mode !== "tool") {
      if (part.type !== "text-delta") return undefined;
      text += part.text;
      return changed(parsePartialJson(text));
    }
    if (part.type === "tool-call" && part.name === output.name && index === undefined) {
      return changed(parsePartialJson(part.args));
    }
    if (part.type !== "tool-call-delta") return undefined;
    if (index === undefined && part.name === output.name) index = part.index;
    if (part.index !== index) return undefined;
    text += part.argsDelta;
    return changed(parsePartialJson(text));
  };
}
