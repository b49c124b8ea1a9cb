/**
 * Globs, compiled once at load: `*` any characters but `/`, `**` any characters (a whole
 * segment only: `**`, `**\/x`, `x/**`), `?` one character but `/`. Nothing else is special,
 * and `[`, `]`, `{`, `}` are refused (no classes, no braces, no regex), so a reviewer reads a
 * glob for what it says.
 */
export function compileGlob(glob: string): RegExp | string {
  if (glob === "") return "is empty";
  if (/[[\]{}]/.test(glob)) return "uses [ ] { } (a glob has only *, ** and ?)";
  let source = "";
  let i = 0;
  while (i < glob.length) {
    const char = glob[i]!;
    if (char === "*" && glob[i + 1] === "*") {
      if (glob[i + 2] === "*") return "has *** (write * or **)";
      const startsSegment = i === 0 || glob[i - 1] === "/";
      const endsSegment = i + 2 === glob.length || glob[i + 2] === "/";
      if (!startsSegment || !endsSegment)
        return "has ** inside a segment (** stands alone between /)";
      if (glob[i + 2] === "/") {
        source += "(?:.*/)?";
        i += 3;
      } else {
        source += ".*";
        i += 2;
      }
      continue;
    }
    if (char === "*") source += "[^/]*";
    else if (char === "?") source += "[^/]";
    else source += char.replace(/[.+^$()|\\]/g, "\\$&");
    i += 1;
  }
  return new RegExp(`^${source}$`, "s");
}

/** True when the text has no glob characters: a literal name. */
export const isLiteral = (text: string): boolean => !/[*?]/.test(text);
