import type { Random } from "./seeded-random.js";

/** Thrown for a regular expression beyond the small subset `regexSample` can write strings for. */
export class UnsupportedPattern extends Error {}

type Node =
  | { kind: "chars"; chars: string }
  | { kind: "seq"; items: Node[] }
  | { kind: "alt"; options: Node[] }
  | { kind: "repeat"; node: Node; min: number; max: number };

const DIGITS = "0123456789";
const LOWER = "abcdefghijklmnopqrstuvwxyz";
const WORD = `${LOWER}${LOWER.toUpperCase()}${DIGITS}_`;
/** Printable ASCII: what a negated class or `.` picks from. */
const PRINTABLE = Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)).join("");
/** What `\S`, `\D` and `\W` pick from: printable ASCII but spaces, digits, word characters. */
const NON_SPACE = PRINTABLE.slice(1);
const NON_DIGIT = [...PRINTABLE].filter((ch) => !DIGITS.includes(ch)).join("");
const NON_WORD = [...PRINTABLE].filter((ch) => !WORD.includes(ch)).join("");

/**
 * A string the pattern (a JSON Schema `pattern`, read as a JavaScript regular expression)
 * matches, for a cheap subset: literals, escapes (\d \w \s, \D \W \S within printable ASCII,
 * escaped characters), classes (ranges, negation within printable ASCII), `.`, groups `( )`
 * `(?: )` `(?<name> )`, alternation and quantifiers (`? * + {n} {n,} {n,m}`, lazy or not),
 * with `^`/`$` at the ends.
 * Anything else (lookarounds, back-references, \b, \p{...}) is an `UnsupportedPattern`.
 * The caller checks the result against the pattern itself.
 */
export function regexSample(pattern: string, random: Random): string {
  let source = pattern;
  if (source.startsWith("^")) source = source.slice(1);
  if (source.endsWith("$") && !source.endsWith("\\$")) source = source.slice(0, -1);
  const parser = { source, at: 0 };
  const node = parseAlt(parser);
  if (parser.at < source.length) throw new UnsupportedPattern(`unexpected "${source[parser.at]}"`);
  return write(node, random);
}

function parseAlt(p: { source: string; at: number }): Node {
  const options = [parseSeq(p)];
  while (p.source[p.at] === "|") {
    p.at++;
    options.push(parseSeq(p));
  }
  return options.length === 1 ? options[0]! : { kind: "alt", options };
}

function parseSeq(p: { source: string; at: number }): Node {
  const items: Node[] = [];
  while (p.at < p.source.length && p.source[p.at] !== "|" && p.source[p.at] !== ")") {
    items.push(parseQuantified(p, parseAtom(p)));
  }
  return { kind: "seq", items };
}

function parseAtom(p: { source: string; at: number }): Node {
  const c = p.source[p.at++]!;
  if (c === "(") {
    if (p.source.startsWith("?:", p.at)) p.at += 2;
    else if (/^\?<[A-Za-z_]\w*>/.test(p.source.slice(p.at))) p.at = p.source.indexOf(">", p.at) + 1;
    else if (p.source[p.at] === "?") throw new UnsupportedPattern("lookarounds are not supported");
    const inner = parseAlt(p);
    if (p.source[p.at++] !== ")") throw new UnsupportedPattern("unclosed group");
    return inner;
  }
  if (c === "[") return parseClass(p);
  if (c === "\\") return { kind: "chars", chars: escaped(p) };
  if (c === ".") return { kind: "chars", chars: LOWER };
  if (c === "^" || c === "$") throw new UnsupportedPattern(`"${c}" inside the pattern`);
  if ("*+?{".includes(c)) throw new UnsupportedPattern(`quantifier "${c}" with nothing before it`);
  return { kind: "chars", chars: c };
}

function escaped(p: { source: string; at: number }): string {
  const c = p.source[p.at++];
  if (c === undefined) throw new UnsupportedPattern("a pattern ending in \\");
  if (c === "d") return DIGITS;
  if (c === "w") return WORD;
  if (c === "s") return " ";
  if (c === "S") return NON_SPACE;
  if (c === "D") return NON_DIGIT;
  if (c === "W") return NON_WORD;
  if (c === "n") return "\n";
  if (c === "t") return "\t";
  if (/[A-Za-z0-9]/.test(c)) throw new UnsupportedPattern(`the escape \\${c}`);
  return c;
}

function parseClass(p: { source: string; at: number }): Node {
  const negated = p.source[p.at] === "^";
  if (negated) p.at++;
  let chars = "";
  let first = true;
  while (p.source[p.at] !== "]" || first) {
    first = false;
    if (p.at >= p.source.length) throw new UnsupportedPattern("unclosed character class");
    let c = p.source[p.at++]!;
    if (c === "\\") {
      const set = escaped(p);
      if (set.length > 1) {
        chars += set;
        continue;
      }
      c = set;
    }
    if (p.source[p.at] === "-" && p.source[p.at + 1] !== "]" && p.at + 1 < p.source.length) {
      p.at++;
      let end = p.source[p.at++]!;
      if (end === "\\") end = escaped(p);
      if (end.length !== 1 || end < c) throw new UnsupportedPattern("a class range");
      for (let code = c.charCodeAt(0); code <= end.charCodeAt(0); code++) {
        chars += String.fromCharCode(code);
      }
    } else chars += c;
  }
  p.at++;
  if (negated) chars = [...PRINTABLE].filter((ch) => !chars.includes(ch)).join("");
  if (chars === "") throw new UnsupportedPattern("an empty character class");
  return { kind: "chars", chars };
}

function parseQuantified(p: { source: string; at: number }, node: Node): Node {
  const c = p.source[p.at];
  let min: number;
  let max: number;
  if (c === "?") [min, max] = [0, 1];
  else if (c === "*") [min, max] = [0, 3];
  else if (c === "+") [min, max] = [1, 3];
  else if (c === "{") {
    const m = /^\{(\d+)(,(\d*))?\}/.exec(p.source.slice(p.at));
    if (!m) return node;
    min = Number(m[1]);
    max = m[2] === undefined ? min : m[3] === "" ? min + 3 : Number(m[3]);
    p.at += m[0].length - 1;
  } else return node;
  p.at++;
  if (p.source[p.at] === "?") p.at++;
  return { kind: "repeat", node, min, max };
}

function write(node: Node, random: Random): string {
  switch (node.kind) {
    case "chars":
      return random.pick([...node.chars]);
    case "seq":
      return node.items.map((item) => write(item, random)).join("");
    case "alt":
      return write(random.pick(node.options), random);
    case "repeat": {
      let text = "";
      for (let n = random.int(node.min, node.max); n > 0; n--) text += write(node.node, random);
      return text;
    }
  }
}
