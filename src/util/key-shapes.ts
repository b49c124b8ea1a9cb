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
  // `api_key=…`, `"x-api-key": "…"`, `token: …`: the value after a credential's name.
  /\b([A-Za-z-]*(?:api[-_]?key|access[-_]?token|secret|password|auth[-_]?token)["']?\s*[:=]\s*["']?)[^\s"'&,}]{8,}/gi,
];

/** `text` with everything shaped like an API key or a token replaced by `[redacted]`. */
export function redactKeyShapes(text: string): string {
  let out = text;
  for (const shape of KEY_SHAPES) {
    out = out.replace(shape, (_match, prefix?: unknown) =>
      typeof prefix === "string" && prefix !== ""
        ? `${prefix}${/^(Bearer|Basic|Token)$/i.test(prefix) ? " " : ""}[redacted]`
        : "[redacted]",
    );
  }
  return out;
}
