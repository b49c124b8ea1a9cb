/**
 * A reader for the YAML that pydantic-ai's VCR cassettes are written in (PyYAML's block
 * style): block mappings and sequences (also sequences not indented under their key), plain,
 * single- and double-quoted scalars over several lines, `|` block scalars with chomping, and
 * empty `{}` / `[]`. Anything else throws, so a cassette it misreads cannot pass unnoticed.
 */
export function parseYaml(text: string): unknown {
  const lines = text.replace(/\r\n/g, "\n").split("\n");
  let i = 0;

  const indentOf = (line: string) => line.length - line.trimStart().length;
  const isBlank = (line: string | undefined) => line !== undefined && line.trim() === "";
  const skipBlank = () => {
    while (i < lines.length && isBlank(lines[i])) i++;
  };
  const isItem = (content: string) => content === "-" || content.startsWith("- ");

  function plainValue(raw: string): unknown {
    if (raw === "" || raw === "~" || raw === "null") return null;
    if (raw === "true") return true;
    if (raw === "false") return false;
    if (raw === "{}") return {};
    if (raw === "[]") return [];
    if (/^[-+]?\d+$/.test(raw)) return Number(raw);
    if (/^[-+]?(\d+\.\d*|\.\d+|\d+)([eE][-+]?\d+)?$/.test(raw)) return Number(raw);
    if (/^[[{!&*|>%@`]/.test(raw)) throw new Error(`unsupported YAML value: ${raw}`);
    return raw;
  }

  const ESCAPES: Record<string, string> = {
    "0": "\0",
    a: "\x07",
    b: "\b",
    t: "\t",
    "\t": "\t",
    n: "\n",
    v: "\v",
    f: "\f",
    r: "\r",
    e: "\x1b",
    " ": " ",
    '"': '"',
    "/": "/",
    "\\": "\\",
    N: "\x85",
    _: "\xa0",
    L: "\u2028",
    P: "\u2029",
  };

  function unescapeDouble(segment: string): string {
    return segment.replace(
      /\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|.)/g,
      (_, code: string) => {
        if (code.length > 1) return String.fromCodePoint(Number.parseInt(code.slice(1), 16));
        const value = ESCAPES[code];
        if (value === undefined) throw new Error(`unsupported YAML escape \\${code}`);
        return value;
      },
    );
  }

  /** Folds the lines of a quoted scalar: one break is a space, n blank lines are n newlines. */
  function fold(raw: string[], double: boolean): string {
    const convert = double ? unescapeDouble : (s: string) => s.replaceAll("''", "'");
    let out = "";
    for (let k = 0; k < raw.length; k++) {
      let line = raw[k] as string;
      if (k > 0) line = line.replace(/^[ \t]+/, "");
      if (k === raw.length - 1) {
        out += convert(line);
        break;
      }
      const backslashes = /\\*$/.exec(line)?.[0].length ?? 0;
      if (double && backslashes % 2 === 1) {
        out += convert(line.slice(0, -1));
        continue;
      }
      out += convert(line.replace(/(?<!\\)[ \t]+$/, ""));
      let blanks = 0;
      while (k + 1 < raw.length - 1 && (raw[k + 1] as string).trim() === "") {
        blanks++;
        k++;
      }
      out += blanks > 0 ? "\n".repeat(blanks) : " ";
    }
    return out;
  }

  /** A quoted scalar starting at `start` of the current line, maybe over several lines. */
  function quoted(start: string): string {
    const quote = start[0] as string;
    const double = quote === '"';
    const raw: string[] = [];
    let rest = start.slice(1);
    for (;;) {
      let k = 0;
      while (k < rest.length) {
        const ch = rest[k];
        if (double && ch === "\\") k += 2;
        else if (!double && ch === "'" && rest[k + 1] === "'") k += 2;
        else if (ch === quote) {
          raw.push(rest.slice(0, k));
          if (rest.slice(k + 1).trim() !== "")
            throw new Error(`unexpected text after a quoted scalar: ${rest}`);
          i++;
          return fold(raw, double);
        } else k++;
      }
      raw.push(rest);
      i++;
      if (i >= lines.length) throw new Error("unterminated quoted scalar");
      rest = lines[i] as string;
    }
  }

  /** A block scalar (`|`, `|-`, `|+`, with an optional indentation digit) under `parentIndent`. */
  function blockScalar(header: string, parentIndent: number): string {
    const match = /^\|([1-9])?([-+])?$/.exec(header) ?? /^\|([-+])?([1-9])?$/.exec(header);
    if (!match) throw new Error(`unsupported block scalar header ${header}`);
    const digit = header.match(/[1-9]/)?.[0];
    const chomp = header.includes("-") ? "strip" : header.includes("+") ? "keep" : "clip";
    i++;
    let indent = digit ? parentIndent + Number(digit) : -1;
    const body: string[] = [];
    while (i < lines.length) {
      const line = lines[i] as string;
      if (line.trim() === "") {
        body.push(line.length > indent && indent >= 0 ? line.slice(indent) : "");
        i++;
        continue;
      }
      const lineIndent = indentOf(line);
      if (indent < 0) indent = lineIndent;
      if (lineIndent < indent || lineIndent <= parentIndent) break;
      body.push(line.slice(indent));
      i++;
    }
    // Trailing blank lines belong to the scalar only when kept; give back the rest.
    let trailing = 0;
    while (trailing < body.length && body[body.length - 1 - trailing] === "") trailing++;
    const content = body.slice(0, body.length - trailing);
    if (i >= lines.length && trailing > 0) trailing--; // the file's final newline
    const text = content.join("\n");
    if (content.length === 0) return "";
    if (chomp === "strip") return text;
    if (chomp === "clip") return `${text}\n`;
    return `${text}\n${"\n".repeat(trailing)}`;
  }

  /** A plain scalar that may continue on more-indented lines. */
  function plain(first: string, parentIndent: number): unknown {
    const parts = [first.trim()];
    i++;
    while (i < lines.length) {
      const line = lines[i] as string;
      if (line.trim() === "" || indentOf(line) <= parentIndent) break;
      parts.push(line.trim());
      i++;
    }
    return parts.length === 1 ? plainValue(parts[0] as string) : parts.join(" ");
  }

  /** The value written after `key:` (or `-`) on the current line, at `indent`. */
  function inlineValue(rest: string, indent: number): unknown {
    if (rest.startsWith('"') || rest.startsWith("'")) return quoted(rest);
    if (rest.startsWith("|")) return blockScalar(rest, indent);
    if (rest.startsWith(">")) throw new Error("folded block scalars are not supported");
    return plain(rest, indent);
  }

  function mapping(indent: number): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (;;) {
      skipBlank();
      const line = lines[i];
      if (
        line === undefined ||
        line === "..." ||
        indentOf(line) !== indent ||
        isItem(line.trim())
      ) {
        return out;
      }
      const content = line.slice(indent);
      let key: string;
      let rest: string;
      if (content.startsWith('"') || content.startsWith("'")) {
        const end = content.indexOf(`${content[0]}:`, 1);
        key = fold([content.slice(1, end)], content[0] === '"');
        rest = content.slice(end + 2).trim();
      } else {
        const colon = content.search(/:( |$)/);
        if (colon < 0) throw new Error(`expected "key:" at line ${i + 1}: ${line}`);
        key = content.slice(0, colon);
        rest = content.slice(colon + 1).trim();
      }
      if (rest !== "") {
        out[key] = inlineValue(rest, indent);
        continue;
      }
      i++;
      skipBlank();
      const next = lines[i];
      if (next !== undefined && indentOf(next) === indent && isItem(next.trim())) {
        out[key] = sequence(indent);
      } else if (next !== undefined && indentOf(next) > indent) out[key] = node(indentOf(next));
      else out[key] = null;
    }
  }

  function sequence(indent: number): unknown[] {
    const out: unknown[] = [];
    for (;;) {
      skipBlank();
      const line = lines[i];
      if (line === undefined || indentOf(line) !== indent || !isItem(line.trim())) return out;
      const content = line.slice(indent + 1).trimStart();
      if (content === "") {
        i++;
        skipBlank();
        out.push(node(indentOf(lines[i] ?? "")));
      } else if (/^[^"'].*?:( |$)/.test(content) || /^(["']).*\1:( |$)/.test(content)) {
        // "- key: value" opens a mapping at the column of "key".
        const column = line.length - content.length;
        lines[i] = " ".repeat(column) + content;
        out.push(mapping(column));
      } else out.push(inlineValue(content, indent));
    }
  }

  function node(indent: number): unknown {
    skipBlank();
    const line = lines[i];
    if (line === undefined) return null;
    return isItem(line.trim()) ? sequence(indent) : mapping(indent);
  }

  const value = node(0);
  skipBlank();
  if (lines[i] === "...") i++; // the document end marker
  skipBlank();
  if (i < lines.length) throw new Error(`unread YAML from line ${i + 1}: ${lines[i]}`);
  return value;
}
