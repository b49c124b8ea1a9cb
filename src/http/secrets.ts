import { isSecretKey, REDACTED } from "../util/secret-keys.js";

/**
 * The URL as error messages show it: no user name or password, no fragment, and the value of
 * every query parameter that looks like a credential (`key=`, `token=`, `sig=`…) replaced by
 * `[redacted]`.
 */
export function displayURL(url: string): string {
  const at = url.indexOf("?");
  const base = (at === -1 ? url : url.slice(0, at)).replace(/\/\/[^/@]*@/, "//");
  if (at === -1) return base;
  const query = url
    .slice(at + 1)
    .split("#")[0]
    ?.split("&")
    .map((pair) => {
      const name = pair.split("=")[0] ?? "";
      return isSecretKey(name) ? `${name}=${REDACTED}` : pair;
    });
  return `${base}?${query?.join("&")}`;
}

/**
 * The credentials an adapter is configured with besides its API key: the values of headers
 * named like `authorization` or `api-key` (a `Bearer` token alone, too) and of credential query
 * parameters in the base URL. Error messages and bodies are scrubbed of each.
 */
export function configSecrets(headers: Record<string, string> = {}, baseURL = ""): string[] {
  const secrets: string[] = [];
  for (const [name, value] of Object.entries(headers)) {
    if (isSecretKey(name)) secrets.push(value, value.replace(/^\S+\s+/, ""));
  }
  const query = baseURL.split("?")[1] ?? "";
  for (const pair of query.split("&")) {
    const name = pair.split("=")[0] ?? "";
    const value = pair.slice(name.length + 1);
    if (isSecretKey(name)) secrets.push(value, safeDecode(value));
  }
  return secrets.filter((secret) => secret.length >= 8);
}

const safeDecode = (value: string): string => {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
};
