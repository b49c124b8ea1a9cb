import { regexSample, UnsupportedPattern } from "./regex-sample.js";
import type { Random } from "./seeded-random.js";

/** A schema `sampleSchema` cannot write a value for: where (a JSON Pointer) and why. */
export class SampleProblem extends Error {
  constructor(
    readonly path: string,
    readonly problem: string,
  ) {
    super(`at ${path || "/"}: ${problem}`);
  }
}

type Schema = Record<string, unknown>;

/**
 * A number (an integer for `"integer"` or a `multipleOf`) within the schema's bounds, chosen by
 * `random`; bounds no number meets are a `SampleProblem`.
 */
export function sampleNumber(schema: Schema, type: string, path: string, random: Random): number {
  let low = -1000;
  let high = 1000;
  let lowOpen = false;
  let highOpen = false;
  const { minimum, maximum, exclusiveMinimum, exclusiveMaximum, multipleOf } = schema;
  if (typeof minimum === "number") low = minimum;
  if (typeof maximum === "number") high = maximum;
  if (typeof exclusiveMinimum === "number" && exclusiveMinimum >= low) {
    [low, lowOpen] = [exclusiveMinimum, true];
  } else if (exclusiveMinimum === true) lowOpen = true;
  if (typeof exclusiveMaximum === "number" && exclusiveMaximum <= high) {
    [high, highOpen] = [exclusiveMaximum, true];
  } else if (exclusiveMaximum === true) highOpen = true;
  if (typeof minimum !== "number" && typeof exclusiveMinimum !== "number")
    low = Math.min(0, high - 100);
  if (typeof maximum !== "number" && typeof exclusiveMaximum !== "number")
    high = Math.max(100, low + 100);
  const step = typeof multipleOf === "number" && multipleOf > 0 ? multipleOf : undefined;
  if (step !== undefined || type === "integer" || random.chance(0.5)) {
    const unit = step ?? 1;
    const first = Math.ceil(low / unit) + (lowOpen && Math.ceil(low / unit) * unit === low ? 1 : 0);
    const last =
      Math.floor(high / unit) - (highOpen && Math.floor(high / unit) * unit === high ? 1 : 0);
    if (first <= last && Number.isSafeInteger(first) && Number.isSafeInteger(last)) {
      const k = random.int(Math.max(first, -1e9), Math.min(last, Math.max(first, -1e9) + 1e9));
      return step === undefined ? k : Number((k * step).toPrecision(12));
    }
    if (step !== undefined || type === "integer") {
      throw new SampleProblem(
        path,
        `no ${step ? `multiple of ${step}` : "integer"} lies within the bounds`,
      );
    }
  }
  if (low > high || (low === high && (lowOpen || highOpen))) {
    throw new SampleProblem(path, "no number lies within the bounds");
  }
  const value = Math.round((low + random.next() * (high - low)) * 1000) / 1000;
  const fits = (v: number) => (lowOpen ? v > low : v >= low) && (highOpen ? v < high : v <= high);
  if (fits(value)) return value;
  const middle = low + (high - low) / 2;
  if (fits(middle)) return middle;
  throw new SampleProblem(path, "no number lies within the bounds");
}

/**
 * A string for the schema: its `format`, else its `pattern` (the cheap subset of
 * `regexSample`, checked against the pattern itself), else letters, within its lengths.
 */
export function sampleString(schema: Schema, path: string, random: Random): string {
  const min = typeof schema.minLength === "number" ? schema.minLength : 0;
  const max = typeof schema.maxLength === "number" ? schema.maxLength : Number.POSITIVE_INFINITY;
  if (min > max) throw new SampleProblem(path, '"minLength" is above "maxLength"');
  const pattern = typeof schema.pattern === "string" ? schema.pattern : undefined;
  let value: string;
  if (schema.format !== undefined) value = formatted(schema.format, path, random);
  else if (pattern !== undefined) {
    let regex: RegExp;
    try {
      regex = new RegExp(pattern, "u");
    } catch (error) {
      throw new SampleProblem(
        path,
        `"pattern" is not a regular expression: ${(error as Error).message}`,
      );
    }
    for (let attempt = 0; ; attempt++) {
      try {
        value = regexSample(pattern, random);
      } catch (error) {
        if (!(error instanceof UnsupportedPattern)) throw error;
        throw new SampleProblem(
          path,
          `"pattern" ${pattern} is beyond the cheap subset (${error.message})`,
        );
      }
      const length = [...value].length;
      if (regex.test(value) && length >= min && length <= max) return value;
      if (attempt === 20) {
        throw new SampleProblem(
          path,
          `no string found for "pattern" ${pattern} within the length bounds`,
        );
      }
    }
  } else {
    const length = random.int(min, Math.min(max, min + 8));
    value = Array.from({ length }, () => random.pick([..."abcdefghijklmnopqrstuvwxyz"])).join("");
  }
  const length = [...value].length;
  if (length < min || length > max) {
    throw new SampleProblem(
      path,
      `the "${schema.format}" value ${JSON.stringify(value)} does not fit "minLength"/"maxLength"`,
    );
  }
  if (pattern !== undefined && !new RegExp(pattern, "u").test(value)) {
    throw new SampleProblem(
      path,
      `the "${schema.format}" value ${JSON.stringify(value)} does not match "pattern" ${pattern}`,
    );
  }
  return value;
}

/** A value of a known `format` (email, uri, uuid, date, time, ip, hostname, duration). */
function formatted(format: unknown, path: string, r: Random): string {
  const pad = (n: number, width = 2) => String(n).padStart(width, "0");
  const word = () => r.pick(["alpha", "bravo", "delta", "echo", "kilo", "lima", "oscar", "tango"]);
  const hex = (n: number) =>
    Array.from({ length: n }, () => r.pick([..."0123456789abcdef"])).join("");
  const date = () => `${r.int(2000, 2030)}-${pad(r.int(1, 12))}-${pad(r.int(1, 28))}`;
  const time = () => `${pad(r.int(0, 23))}:${pad(r.int(0, 59))}:${pad(r.int(0, 59))}`;
  switch (format) {
    case "email":
      return `${word()}${r.int(1, 99)}@example.com`;
    case "uri":
    case "url":
    case "iri":
    case "uri-reference":
    case "iri-reference":
      return `https://example.com/${word()}/${r.int(1, 999)}`;
    case "uuid":
      return `${hex(8)}-${hex(4)}-4${hex(3)}-${r.pick([..."89ab"])}${hex(3)}-${hex(12)}`;
    case "date":
      return date();
    case "date-time":
      return `${date()}T${time()}Z`;
    case "time":
      return `${time()}Z`;
    case "ipv4":
      return `${r.int(1, 223)}.${r.int(0, 255)}.${r.int(0, 255)}.${r.int(1, 254)}`;
    case "ipv6":
      return `2001:db8::${hex(4).replace(/^0+(?=.)/, "")}`;
    case "hostname":
      return `${word()}.example.com`;
    case "duration":
      return `P${r.int(1, 30)}D`;
    default:
      throw new SampleProblem(path, `the "format" ${JSON.stringify(format)} is not supported`);
  }
}
