import { PartialNumber } from "./partial-number.js";

/**
 * Nesting deeper than any answer: the text is read no deeper (`JSON.stringify` and the loop's
 * freezing of events would overflow the stack on such a value).
 */
const MAX_DEPTH = 1000;

/** What copying an open array or object costs (see `PartialJson.openSize`), and each of its members. */
const [FRAME_COST, ITEM_COST, KEY_COST] = [20, 1, 10];

/** What may come next inside an open array or object. */
type Expect =
  /** Just opened: a value or `]` (array), a key or `}` (object). */
  | "first"
  /** A value: after `,` in an array, after `:` in an object. */
  | "value"
  /** A key, after `,` in an object. */
  | "key"
  /** The `:` after a key. */
  | "colon"
  /** After a value: `,` or the closing bracket. */
  | "after";

/** An open array or object: its members so far (`value()` copies them; only `end()` hands them out). */
interface Frame {
  readonly array: boolean;
  readonly members: unknown[] | Record<string, unknown>;
  /** In an object: the key of the member being read. */
  key: string;
  expect: Expect;
  /** What copying its members costs (see `openSize`). */
  size: number;
}

/** The token being read inside the innermost open array or object. */
type Token = "none" | "key" | "string" | "number" | "literal";

const LITERALS: Record<string, readonly [string, unknown]> = {
  t: ["true", true],
  f: ["false", false],
  n: ["null", null],
};
const ESCAPES: Record<string, string> = {
  '"': '"',
  "\\": "\\",
  "/": "/",
  b: "\b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
};
const [QUOTE, BACKSLASH, COMMA, COLON] = [34, 92, 44, 58];
const [OPEN_ARRAY, CLOSE_ARRAY, OPEN_OBJECT, CLOSE_OBJECT] = [91, 93, 123, 125];

const isSpace = (code: number) => code === 32 || code === 10 || code === 13 || code === 9;
const isDigit = (code: number) => code >= 48 && code <= 57;
const isHex = (char: string) => /^[0-9a-fA-F]$/.test(char);

/**
 * The JSON value a text has begun, read as `PartialJson` reads it: `undefined` while there is
 * no `{` or `[` yet.
 *
 * @example
 * parsePartialJson('{"city": "Os') // → { city: "Os" }
 */
export function parsePartialJson(text: string): unknown {
  const json = new PartialJson();
  json.push(text);
  return json.end();
}

/** Adds a member to an array, or sets an object's `key` as its own field (`__proto__` too, as `JSON.parse` does). */
function addMember(
  members: unknown[] | Record<string, unknown>,
  key: string,
  value: unknown,
): void {
  if (Array.isArray(members)) members.push(value);
  else if (key === "__proto__") {
    Object.defineProperty(members, key, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  } else members[key] = value;
}

/** No value (a member not begun, a literal half read). */
const NONE: unique symbol = Symbol("none");

/**
 * Reads the JSON value a streamed text has begun (structured output's `output-delta`), one
 * piece of text at a time, each character once: a stream's pieces cost what their own length
 * does, never what the text so far does. The value so far has its open string, arrays and
 * objects closed, and drops a token cut off at the end (a key without its value, `tru`, a
 * lone `-`; `12.` reads 12). Text before the first `{` or `[` is skipped (a ```json fence, say);
 * the value ends at its last bracket, or where the text stops being JSON (or nests deeper
 * than 1000): what follows is not read.
 *
 * @example
 * const json = new PartialJson();
 * json.push('{"city": "Os');
 * json.value(); // → { city: "Os" }
 */
export class PartialJson {
  /** Characters read from the first `{` or `[` on. */
  length = 0;
  /** The value may have changed since `value()` last gave it. */
  changed = false;

  readonly #frames: Frame[] = [];
  #openSize = 0;
  /** The whole value, once its last bracket is read. */
  #whole: unknown = NONE;
  /** The value is whole, or the text stopped being JSON: the rest is not read. */
  #done = false;
  #token: Token = "none";
  /** The key or string being read, decoded so far. */
  #text = "";
  /** Inside a string: "" (no escape), "\\" (after a backslash), or "u" and the hex digits so far. */
  #escape = "";
  #number: PartialNumber | undefined;
  /** The literal being read, and how many of its characters were. */
  #literal: readonly [string, unknown] = LITERALS.t!;
  #literalRead = 0;

  /** Reads the next piece of the text. */
  push(text: string): void {
    if (this.#done) return;
    let at = 0;
    if (this.#frames.length === 0) {
      at = text.search(/[[{]/);
      if (at < 0) return;
    }
    this.length += text.length - at;
    while (at < text.length && !this.#done) at = this.#read(text, at);
  }

  /** The value is whole: its last bracket was read. */
  get whole(): boolean {
    return this.#whole !== NONE;
  }

  /**
   * What a `value()` costs, in array items copied: each array or object still open counts 20,
   * each of their members 1 (an array's) or 10 (an object's, whose keys cost that much more).
   */
  get openSize(): number {
    return this.#openSize;
  }

  /**
   * The value read so far, frozen all the way down; `undefined` before the first `{` or `[`.
   * Each call copies the arrays and objects still open; members read whole are the same
   * (frozen) objects every time.
   */
  value(): unknown {
    this.changed = false;
    if (this.#whole !== NONE) return this.#whole;
    return this.#build((frame) =>
      frame.array ? (frame.members as unknown[]).slice() : { ...frame.members },
    );
  }

  /**
   * The value read so far, as `value()` gives it, built from the open arrays and objects
   * themselves instead of copies: nothing more is read after it.
   */
  end(): unknown {
    this.changed = false;
    this.#done = true;
    if (this.#whole !== NONE) return this.#whole;
    this.#whole = this.#build((frame) => frame.members);
    return this.#whole;
  }

  /** The value, from the innermost token out, each open array or object as `take` gives it. */
  #build(take: (frame: Frame) => unknown[] | Record<string, unknown>): unknown {
    let value = this.#tokenValue();
    for (let depth = this.#frames.length - 1; depth >= 0; depth--) {
      const frame = this.#frames[depth]!;
      const members = take(frame);
      if (value !== NONE) addMember(members, frame.key, value);
      value = Object.freeze(members);
    }
    return value === NONE ? undefined : value;
  }

  /** Reads from `at`; returns where to go on. */
  #read(text: string, at: number): number {
    const token = this.#token;
    if (token === "key" || token === "string") return this.#readString(text, at);
    const code = text.charCodeAt(at);
    if (token === "number") {
      if (this.#number!.read(code)) {
        if (isDigit(code)) this.changed = true;
        return at + 1;
      }
      if (!this.#number!.complete) return this.#stop();
      this.#commit(this.#number!.value());
      return at; // the character after the number is read again, as what follows it
    }
    if (token === "literal") return this.#readLiteral(code, at);
    if (isSpace(code)) return at + 1;
    return this.#readStructure(text, code, at);
  }

  #readStructure(text: string, code: number, at: number): number {
    const frame = this.#frames[this.#frames.length - 1];
    if (frame === undefined) return this.#open(code === OPEN_ARRAY, at);
    const closing = frame.array ? CLOSE_ARRAY : CLOSE_OBJECT;
    switch (frame.expect) {
      case "first":
        if (code === closing) return this.#close(at);
        return frame.array ? this.#startValue(text, code, at) : this.#startKey(code, at);
      case "value":
        return this.#startValue(text, code, at);
      case "key":
        return this.#startKey(code, at);
      case "colon":
        if (code !== COLON) return this.#stop();
        frame.expect = "value";
        return at + 1;
      case "after":
        if (code === closing) return this.#close(at);
        if (code !== COMMA) return this.#stop();
        frame.expect = frame.array ? "value" : "key";
        return at + 1;
    }
  }

  #startValue(text: string, code: number, at: number): number {
    if (code === OPEN_ARRAY || code === OPEN_OBJECT) return this.#open(code === OPEN_ARRAY, at);
    if (code === QUOTE) {
      this.#token = "string";
      this.#text = "";
      this.changed = true;
      return at + 1;
    }
    if (code === 45 || isDigit(code)) {
      this.#token = "number";
      this.#number = new PartialNumber(code);
      if (code !== 45) this.changed = true;
      return at + 1;
    }
    const literal = LITERALS[text[at]!];
    if (literal === undefined) return this.#stop();
    this.#token = "literal";
    this.#literal = literal;
    this.#literalRead = 1;
    return at + 1;
  }

  #startKey(code: number, at: number): number {
    if (code !== QUOTE) return this.#stop();
    this.#token = "key";
    this.#text = "";
    return at + 1;
  }

  #readLiteral(code: number, at: number): number {
    const [word, value] = this.#literal;
    if (code !== word.charCodeAt(this.#literalRead)) return this.#stop();
    if (++this.#literalRead === word.length) {
      this.#commit(value);
      this.changed = true;
    }
    return at + 1;
  }

  /** Reads a key's or a string's characters, a run of plain ones at a time. */
  #readString(text: string, at: number): number {
    if (this.#escape !== "") return this.#readEscape(text[at]!, at);
    let end = at;
    for (; end < text.length; end++) {
      const code = text.charCodeAt(end);
      if (code === QUOTE || code === BACKSLASH || code < 32) break;
    }
    if (end > at) this.#append(text.slice(at, end));
    if (end === text.length) return end;
    const code = text.charCodeAt(end);
    if (code === BACKSLASH) this.#escape = "\\";
    else if (code === QUOTE) this.#endString();
    else return this.#stop(); // a control character: JSON escapes them
    return end + 1;
  }

  #readEscape(char: string, at: number): number {
    if (this.#escape === "\\") {
      const escaped = ESCAPES[char];
      if (escaped !== undefined) {
        this.#escape = "";
        this.#append(escaped);
      } else if (char === "u") this.#escape = "u";
      else return this.#stop();
      return at + 1;
    }
    if (!isHex(char)) return this.#stop();
    this.#escape += char;
    if (this.#escape.length === 5) {
      this.#append(String.fromCharCode(Number.parseInt(this.#escape.slice(1), 16)));
      this.#escape = "";
    }
    return at + 1;
  }

  #append(piece: string): void {
    this.#text += piece;
    if (this.#token === "string") this.changed = true;
  }

  #endString(): void {
    if (this.#token === "string") {
      this.#commit(this.#text);
      return;
    }
    const frame = this.#frames[this.#frames.length - 1]!;
    frame.key = this.#text;
    frame.expect = "colon";
    this.#token = "none";
  }

  #open(array: boolean, at: number): number {
    if (this.#frames.length >= MAX_DEPTH) return this.#stop();
    this.#frames.push({
      array,
      members: array ? [] : {},
      key: "",
      expect: "first",
      size: FRAME_COST,
    });
    this.#openSize += FRAME_COST;
    this.changed = true;
    return at + 1;
  }

  #close(at: number): number {
    const frame = this.#frames.pop()!;
    this.#openSize -= frame.size;
    // Its members are frozen already: it is frozen all the way down, and shared from now on.
    const members = Object.freeze(frame.members);
    if (this.#frames.length === 0) {
      this.#whole = members;
      this.#done = true;
    } else this.#commit(members);
    return at + 1;
  }

  /** The member being read is whole: it joins its array or object. */
  #commit(value: unknown): void {
    const frame = this.#frames[this.#frames.length - 1]!;
    addMember(frame.members, frame.key, value);
    const cost = frame.array ? ITEM_COST : KEY_COST;
    frame.size += cost;
    this.#openSize += cost;
    frame.expect = "after";
    this.#token = "none";
  }

  /** The text is read no further: the value stays what it was before this character. */
  #stop(): number {
    this.#done = true;
    return 0;
  }

  /** The token being read, as the value so far shows it. */
  #tokenValue(): unknown {
    if (this.#token === "string") return this.#text;
    if (this.#token === "number") return this.#number!.value() ?? NONE;
    return NONE;
  }
}
