/**
 * Reads the JSON value a streamed text has begun (structured output's `output-delta`): open
 * strings, arrays and objects are closed, and a token cut off at the end (a key without its
 * value, `tru`, a trailing comma) is dropped. Text before the first `{` or `[` is skipped (a
 * ```json fence, say). `undefined` while there is no object or array yet.
 *
 * @example
 * parsePartialJson('{"city": "Os') // → { city: "Os" }
 */
export function parsePartialJson(text: string): unknown {
  const start = text.search(/[[{]/);
  if (start < 0) return undefined;
  const body = text.slice(start);
  for (let end = body.length; end > 0; end--) {
    const closed = closeJson(body.slice(0, end));
    if (closed === undefined) continue;
    try {
      return JSON.parse(closed);
    } catch {
      // cut one more character and try again
    }
  }
  return undefined;
}

/** The text with its open string, arrays and objects closed; undefined past the value's end. */
function closeJson(text: string): string | undefined {
  const open: string[] = [];
  let inString = false;
  let escaped = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (inString) {
      if (escaped) escaped = false;
      else if (char === "\\") escaped = true;
      else if (char === '"') inString = false;
      continue;
    }
    if (char === '"') inString = true;
    else if (char === "{") open.push("}");
    else if (char === "[") open.push("]");
    else if (char === "}" || char === "]") {
      if (open.pop() !== char) return undefined;
      if (open.length === 0) return text.slice(0, i + 1);
    }
  }
  let closed = text;
  if (inString) closed = `${escaped ? closed.slice(0, -1) : closed}"`;
  closed = closed.replace(/[\s,]+$/, "");
  return closed + open.reverse().join("");
}
