import { readEnv } from "./env.js";

const EXAMPLE = "https://api.example.com/v1";

/** Host names that are usually served over plain http: loopback, private networks, bare names. */
const LOCAL_HOST =
  /^(localhost|.*\.localhost|127(\.\d+){3}|0\.0\.0\.0|\[::1?\]|10(\.\d+){3}|192\.168(\.\d+){2}|172\.(1[6-9]|2\d|3[01])(\.\d+){2}|[^.]+|.*\.(local|internal|lan|home\.arpa))$/i;

/** The same address with a scheme: `http://` for a local host, `https://` for any other. */
function withScheme(value: string): string {
  const typo = /^(https?)[:/]+/i.exec(value);
  if (typo) return `${typo[1]?.toLowerCase()}://${value.slice(typo[0].length)}`;
  const address = value.replace(/^\/+/, "");
  const host = (address.split(/[/?#]/)[0] ?? "").replace(/:\d*$/, "");
  return `${LOCAL_HOST.test(host) ? "http" : "https"}://${address}`;
}

const parseURL = (value: string): URL | undefined => {
  try {
    return new URL(value);
  } catch {
    return undefined;
  }
};

/** A URL split at its first "?": the part before, and the query (`undefined` when there is none). */
function splitQuery(url: string): [string, string | undefined] {
  const at = url.indexOf("?");
  return at === -1 ? [url, undefined] : [url.slice(0, at), url.slice(at + 1)];
}

/** What is wrong with a base URL and what to write instead, or `undefined` when it is fine. */
function baseURLProblem(value: string): string | undefined {
  const trimmed = value.trim();
  if (trimmed === "")
    return `is empty; leave it out for the default, or write a URL like "${EXAMPLE}"`;
  if (trimmed !== value) return `has spaces around it; write "${trimmed}"`;
  const scheme = /^([a-z][a-z\d+.-]*):\/\//i.exec(value)?.[1]?.toLowerCase();
  if (scheme === undefined)
    return `"${value}" is not an absolute URL; write "${withScheme(value)}"`;
  if (scheme !== "http" && scheme !== "https") {
    return `"${value}" must use http or https, e.g. "${withScheme(value.slice(scheme.length + 3))}"`;
  }
  const url = parseURL(value);
  if (!url) return `"${value}" is not a valid URL; write it like "${EXAMPLE}"`;
  if (url.username || url.password) {
    return "must not hold a user name or password (fetch refuses such URLs); pass the key as `apiKey` or in `headers`";
  }
  if (value.includes("#")) return `must not have a #fragment; write "${value.split("#")[0]}"`;
  return undefined;
}

/**
 * Checks a base URL where it enters: it must be an absolute http(s) URL, without credentials or
 * a fragment (a query is kept and sent with every request). Anything else is a `TypeError` that
 * shows what to write instead, so `"localhost:11434/v1"` fails when the adapter is made, not as a
 * retried "connection failed" on the first call. Returns the URL without trailing slashes.
 *
 * @example
 * checkBaseURL("openAIChat", "localhost:11434/v1");
 * // TypeError: openAIChat: `baseURL` "localhost:11434/v1" is not an absolute URL; write "http://localhost:11434/v1"
 */
export function checkBaseURL(where: string, value: unknown, source = "`baseURL`"): string {
  if (typeof value !== "string") {
    throw new TypeError(`${where}: ${source} must be a URL string like "${EXAMPLE}"`);
  }
  const problem = baseURLProblem(value);
  if (problem) throw new TypeError(`${where}: ${source} ${problem}`);
  return joinURL(value, "");
}

/** The base URL in effect, checked: the option, else the environment variable `env`, else `fallback`. */
export function resolveBaseURL(
  where: string,
  option: unknown,
  fallback: string,
  env?: string,
): string {
  if (option !== undefined) return checkBaseURL(where, option);
  const fromEnv = env === undefined ? undefined : readEnv(env);
  return fromEnv === undefined ? fallback : checkBaseURL(where, fromEnv, env);
}

/**
 * `path` (which may have a query, e.g. `?alt=sse`) appended to `base` (which may have one too):
 * the paths joined, the queries merged, the path's first.
 */
export function joinURL(base: string, path: string): string {
  const [basePath, baseQuery] = splitQuery(base);
  const [ownPath, ownQuery] = splitQuery(path);
  const query = [ownQuery, baseQuery].filter(Boolean).join("&");
  return `${basePath.replace(/\/+$/, "")}${ownPath}${query ? `?${query}` : ""}`;
}
