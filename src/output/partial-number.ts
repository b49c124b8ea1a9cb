/** Where a number's text is: what it has read last. */
type Phase = "minus" | "zero" | "int" | "dot" | "frac" | "e" | "sign" | "exp";

/**
 * Significant digits kept: a double is read right from its first 768, so the digits past these
 * only tell whether the rest is zero.
 */
const MAX_DIGITS = 800;
/** Past this the exponent is far out of range whatever the digits: it stops growing. */
const MAX_EXPONENT = 1e15;

const isDigit = (code: number) => code >= 48 && code <= 57;

/**
 * A JSON number read one character at a time, whose value so far is that of its longest
 * prefix that is a number (`12.` reads 12, `1.5e-` 1.5, `-` nothing), as `JSON.parse` reads it.
 * It keeps at most 800 significant digits, so a number millions of digits long costs the same
 * to read at every character.
 */
export class PartialNumber {
  #phase: Phase;
  readonly #negative: boolean;
  /** Significant digits: the value is 0.<digits> × 10^(point + exponent). */
  #digits = "";
  /** A non-zero digit past `MAX_DIGITS` was read. */
  #dropped = false;
  #point = 0;
  #exponentNegative = false;
  #exponent = 0;

  /** Starts with the number's first character (`-` or a digit). */
  constructor(first: number) {
    this.#negative = first === 45;
    this.#phase = "minus";
    if (!this.#negative) this.read(first);
  }

  /** Reads the next character; `false` (and nothing read) when it cannot continue the number. */
  read(code: number): boolean {
    switch (this.#phase) {
      case "minus":
        if (code === 48) this.#phase = "zero";
        else if (isDigit(code)) this.#intDigit(code);
        else return false;
        return true;
      case "zero":
        return this.#fractionOrExponent(code);
      case "int":
        if (isDigit(code)) this.#intDigit(code);
        else return this.#fractionOrExponent(code);
        return true;
      case "dot":
      case "frac":
        if (isDigit(code)) this.#fracDigit(code);
        else return this.#phase === "frac" && this.#exponentStart(code);
        return true;
      case "e":
        if (code === 43 || code === 45) {
          this.#exponentNegative = code === 45;
          this.#phase = "sign";
          return true;
        }
        return this.#exponentDigit(code);
      case "sign":
      case "exp":
        return this.#exponentDigit(code);
    }
  }

  /** The number can end here (its text so far is a whole number). */
  get complete(): boolean {
    return (
      this.#phase === "zero" ||
      this.#phase === "int" ||
      this.#phase === "frac" ||
      this.#phase === "exp"
    );
  }

  /** The value of the longest prefix read that is a number; `undefined` after a lone `-`. */
  value(): number | undefined {
    if (this.#phase === "minus") return undefined;
    if (this.#digits === "") return this.#negative ? -0 : 0;
    const exponent = this.#point + (this.#exponentNegative ? -this.#exponent : this.#exponent);
    const sign = this.#negative ? "-" : "";
    return Number(`${sign}0.${this.#digits}${this.#dropped ? "1" : ""}e${exponent}`);
  }

  #fractionOrExponent(code: number): boolean {
    if (code !== 46) return this.#exponentStart(code);
    this.#phase = "dot";
    return true;
  }

  #exponentStart(code: number): boolean {
    if (code !== 101 && code !== 69) return false;
    this.#phase = "e";
    return true;
  }

  #intDigit(code: number): void {
    this.#phase = "int";
    this.#point++;
    this.#keep(code);
  }

  #fracDigit(code: number): void {
    this.#phase = "frac";
    if (this.#digits === "" && code === 48) this.#point--;
    else this.#keep(code);
  }

  #exponentDigit(code: number): boolean {
    if (!isDigit(code)) return false;
    this.#phase = "exp";
    this.#exponent = Math.min(this.#exponent * 10 + code - 48, MAX_EXPONENT);
    return true;
  }

  #keep(code: number): void {
    if (this.#digits.length < MAX_DIGITS) this.#digits += String.fromCharCode(code);
    else if (code !== 48) this.#dropped = true;
  }
}
