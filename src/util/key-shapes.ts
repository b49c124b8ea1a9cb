import { isSecretKey, REDACTED } from "./secret-keys.js";

/**
 * Credentials by their shape, for text whose secrets are not known: `fromAISDK` never sees the
 * model's API key (the provider package keeps it), so what a server echoes back ("Incorrect API
 * key provided: sk-…") is scrubbed by pattern, best-effort; cassettes scrub what they write the
 * same way. The native adapters know their key and scrub it exactly.
 */
const KEY_SHAPES: readonly RegExp[] = [
  // OpenAI (sk-, sk-proj-), Anthropic (sk-ant-), and the many keys written the same way.
  /\b(?:sk|pk|rk)[-_][A-Za-z0-9_*.-]{8,}/g,
  // Google (AIza…), Groq (gsk_…), xAI (xai-…), Hugging Face (hf_…), GitHub (ghp_…, github_pat_…).
  /\bAIza[0-9A-Za-z_-]{20,}/g,
  /\b(?:gsk|hf|ghp|gho|ghs|github_pat|xoxb|xoxp)_[A-Za-z0-9_]{8,}/g,
  /\bxai-[A-Za-z0-9_-]{8,}/g,
  // AWS access key ids.
  /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g,
  // A token after an auth scheme.
  /\b(Bearer|Basic|Token)\s+[A-Za-z0-9._~+/=-]{8,}/gi,
];

/**
 * The five names free text has always been scrubbed after. A name holding one of them
 * (`my_api_key`, `client_secret`) keeps exactly the verdict `NAMED_VALUE` gives it:
 * test/util/key-shapes.test.ts holds that to the expressions written before issue 24.
 */
const NAMED = /api[-_]?key|access[-_]?token|secret|password|auth[-_]?token/i;

/**
 * `api_key=…`, `"x-api-key": "…"`, `auth_token: …`: the value after one of the `NAMED`, the name
 * with what comes before its value kept (group 1). The name may end a run of letters and
 * hyphens that starts at a word boundary (`x-api-key`, `myApiKey`): `startsAtWord` checks that,
 * where a `\b[A-Za-z-]*` before the name would make a regular expression try every boundary of
 * a long hyphenated run again (quadratic: 40 kB of "a-a-…" took 2 s).
 */
const NAMED_VALUE = new RegExp(`((?:${NAMED.source})["']?\\s*[:=]\\s*["']?)[^\\s"'&,}]{8,}`, "gi");

/**
 * `session=…`, `"sig": "…"`, `X-Amz-Signature: …`: a whole name (not the end of a longer one),
 * what comes before its value (group 2), and a look at the value's first 8 characters, so a
 * name whose value is not a secret's costs no rescan of that value.
 */
const WHOLE_NAME = /(?<![A-Za-z0-9_.-])([A-Za-z0-9_.-]+)(["']?\s*[:=]\s*["']?)(?=[^\s"'&,}]{8})/g;

/** Where a value after a name ends: at a space, a quote, `&`, `,` or `}`. */
const VALUE_END = /[\s"'&,}]/g;

/**
 * `text` with everything shaped like an API key or a token replaced by `[redacted]`. With
 * `byName: false`, a value is redacted for its shape or after one of the five `NAMED` only, not
 * after every name `isSecretKey` calls a credential's: for text that runs as it is (a recorded
 * model's tool-call args), where `"key": "user-1234"` is data the tool must get back.
 */
export function redactKeyShapes(
  text: string,
  { byName = true }: { byName?: boolean } = {},
): string {
  let out = text;
  for (const shape of KEY_SHAPES) {
    out = out.replace(shape, (_match, prefix?: unknown) =>
      typeof prefix === "string" && prefix !== ""
        ? `${prefix}${/^(Bearer|Basic|Token)$/i.test(prefix) ? " " : ""}${REDACTED}`
        : REDACTED,
    );
  }
  const named = redactNamedValues(out);
  return byName ? redactSecretNames(named) : named;
}

/** `text` with each value after a credential's name (`NAMED_VALUE`) replaced by `[redacted]`. */
function redactNamedValues(text: string): string {
  let out = "";
  let copied = 0;
  NAMED_VALUE.lastIndex = 0;
  for (let match = NAMED_VALUE.exec(text); match !== null; match = NAMED_VALUE.exec(text)) {
    if (!startsAtWord(text, match.index)) {
      NAMED_VALUE.lastIndex = match.index + 1;
      continue;
    }
    out += `${text.slice(copied, match.index)}${match[1]}${REDACTED}`;
    copied = NAMED_VALUE.lastIndex;
  }
  return copied === 0 ? text : out + text.slice(copied);
}

/**
 * `text` with the value after every other name `isSecretKey` calls a credential's (`session`,
 * `sig`, `key`, `token`, `cookie`…) replaced by `[redacted]`, as cassettes and error messages
 * redact by name. A name ending in `Bearer` is the scheme of an `Authorization` value, redacted
 * by its shape (`Bearer <token>`), not a field.
 */
function redactSecretNames(text: string): string {
  let out = "";
  let copied = 0;
  WHOLE_NAME.lastIndex = 0;
  for (let match = WHOLE_NAME.exec(text); match !== null; match = WHOLE_NAME.exec(text)) {
    const name = match[1]!;
    if (NAMED.test(name) || /bearer$/i.test(name) || !isSecretKey(name)) continue;
    VALUE_END.lastIndex = WHOLE_NAME.lastIndex;
    const end = VALUE_END.exec(text)?.index ?? text.length;
    out += `${text.slice(copied, WHOLE_NAME.lastIndex)}${REDACTED}`;
    copied = end;
    WHOLE_NAME.lastIndex = end;
  }
  return copied === 0 ? text : out + text.slice(copied);
}

/**
 * Whether the letters and hyphens right before `at` begin at a word boundary (`\b`, ASCII word
 * characters): they hold a hyphen, or they start the text or follow a character that is not a
 * digit or `_`. Each run of letters is scanned for at most one name, so this stays linear.
 */
function startsAtWord(text: string, at: number): boolean {
  let start = at;
  let hyphen = false;
  for (; start > 0; start--) {
    const code = text.charCodeAt(start - 1) | 0x20; // lower case, for letters
    if (text.charCodeAt(start - 1) === 45) hyphen = true;
    else if (code < 97 || code > 122) break;
  }
  return hyphen || start === 0 || !/[0-9_]/.test(text[start - 1]!);
}
