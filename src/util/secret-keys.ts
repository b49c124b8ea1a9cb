/**
 * Which names name a credential: one rule for every place tollgate redacts by name — the keys
 * of a cassette's JSON (`testing/cassette-redact`), the header and query-parameter names of the
 * HTTP transport's error messages (`http/secrets`), and a name before a value in free text
 * (`util/key-shapes`). When in doubt it redacts: a leaked secret is worse than a redacted
 * harmless field.
 */

/** What a redacted value becomes, wherever it is redacted. */
export const REDACTED = "[redacted]";

/**
 * Stems that make a name a credential's wherever they stand in it, inside a longer word too
 * (`passwordHash`, `jsessionid`, `X-Amz-Credential`, `clientSecret`, `x-apikey`).
 */
const SECRET_STEMS = [
  "apikey",
  "privatekey",
  "secret",
  "password",
  "passwd",
  "passphrase",
  "passcode",
  "credential",
  "session",
  "sessid",
  "cookie",
  "signature",
  "authorization",
  "authentication",
  "bearer",
];

/**
 * Short words that make a name a credential's when a word of the name ends with them (`key`,
 * `x-api-key`, `access_token`, `oauth`, `sig`, `bypass`). Inside a word they mean something
 * else: `tokens` counts a model's usage (`inputTokens`, `max_tokens` stay readable in a
 * cassette), and `keyword`, `author`, `signal`, `passage` hold no credential.
 */
const SECRET_WORDS = ["key", "token", "auth", "sig", "pass"];

/**
 * Whether a key, header or query-parameter name names a credential (`apiKey`, `x-api-key`,
 * `Authorization`, `access_token`, `session`, `sig`, `X-Amz-Signature`, `set-cookie`…),
 * whatever its case and separators. Used for every redaction by name, so cassettes, error
 * messages and scrubbed text agree on what a secret is.
 */
export function isSecretKey(name: string): boolean {
  const lower = name.toLowerCase();
  const glued = lower.replace(/[^a-z0-9]/g, "");
  for (const stem of SECRET_STEMS) if (glued.includes(stem)) return true;
  for (const word of wordsOf(name)) {
    for (const end of SECRET_WORDS) if (word.endsWith(end)) return true;
  }
  return false;
}

/** `"X-Api-Key"`, `"apiKey"`, `"API_KEY"` → `["x", "api", "key"]`: a name's words, lower case. */
function wordsOf(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/);
}
