/** One streamed argument value of a Vertex function call (`FunctionCall.partialArgs[]`). */
export interface PartialArg {
  /** Where the value goes, as an RFC 9535 JSON path, e.g. `$.items[0].name`. */
  jsonPath?: string;
  stringValue?: string;
  numberValue?: number;
  boolValue?: boolean;
  nullValue?: unknown;
  /** More pieces of the same (string) value follow. */
  willContinue?: boolean;
}

const SEGMENT = /\.([^.[\]]+)|\[(\d+)\]|\['((?:[^'\\]|\\.)*)'\]|\["((?:[^"\\]|\\.)*)"\]/g;

/** The keys and indexes of a JSON path like `$.a.b[0]['c d']`. */
export function pathSegments(jsonPath: string): (string | number)[] {
  const segments: (string | number)[] = [];
  for (const match of jsonPath.replace(/^\$/, "").matchAll(SEGMENT)) {
    const [, dotted, index, single, double] = match;
    if (index !== undefined) segments.push(Number(index));
    else segments.push((dotted ?? single ?? double ?? "").replace(/\\(.)/g, "$1"));
  }
  return segments;
}

function argValue(arg: PartialArg): unknown {
  if (arg.stringValue !== undefined) return arg.stringValue;
  if (arg.numberValue !== undefined) return arg.numberValue;
  if (arg.boolValue !== undefined) return arg.boolValue;
  return null;
}

/**
 * Writes one partial argument into `args`, creating objects and arrays on the way. With
 * `append`, a string value continues the string already at that path.
 */
export function setPartialArg(
  args: Record<string, unknown>,
  arg: PartialArg,
  append: boolean,
): void {
  const segments = pathSegments(arg.jsonPath ?? "$");
  const key = segments.pop();
  if (key === undefined) return;
  let node: Record<string | number, unknown> = args;
  segments.forEach((segment, i) => {
    const nextIsIndex = typeof (segments[i + 1] ?? key) === "number";
    if (typeof node[segment] !== "object" || node[segment] === null) {
      node[segment] = nextIsIndex ? [] : {};
    }
    node = node[segment] as Record<string | number, unknown>;
  });
  const value = argValue(arg);
  const previous = node[key];
  node[key] =
    append && typeof previous === "string" && typeof value === "string" ? previous + value : value;
}
