/**
 * Which requests come from the inbox's own page. A page of another site can reach 127.0.0.1
 * through the browser in two ways: as itself (its `Origin` says so) or, by DNS rebinding, under
 * a name of its own that resolves to 127.0.0.1, which makes it same-origin with the inbox (its
 * `Host` says so). So every request must name an address the inbox serves in `Host`, and, when
 * it sends an `Origin`, one of those too; anything else is refused before it is routed.
 */
import type { IncomingMessage } from "node:http";
import { InboxError } from "./decisions.js";

/** The loopback names the inbox answers at, whatever it listens on. */
const LOOPBACK = ["127.0.0.1", "localhost", "[::1]"];

/**
 * Checks the `origins` option of `createInbox`: each an origin as a browser sends it
 * (`https://inbox.example.com`, `http://10.0.0.5:8787`), else a TypeError.
 */
export function checkedOrigins(origins: unknown): string[] {
  if (origins === undefined) return [];
  if (!Array.isArray(origins)) {
    throw new TypeError(
      'createInbox: origins must be a list of origins, like ["https://inbox.example.com"]',
    );
  }
  return origins.map((origin: unknown) => {
    const parsed = typeof origin === "string" && URL.canParse(origin) ? new URL(origin) : undefined;
    if (!parsed || !/^https?:$/.test(parsed.protocol) || parsed.origin !== origin) {
      throw new TypeError(
        `createInbox: each of origins must be an origin (http or https, a host, an optional port; no path or trailing slash), like "https://inbox.example.com", not ${JSON.stringify(origin)}`,
      );
    }
    return parsed.origin;
  });
}

/**
 * Refuses (403, nothing routed) a request whose `Host` is not an address the inbox serves, or
 * whose `Origin`, when present, is not one. The inbox serves its loopback names on the port the
 * request came in on, the host it listens on (`listenHost`, unless a wildcard), and `origins`.
 */
export function checkOwnOrigin(
  request: IncomingMessage,
  listenHost: string | undefined,
  origins: readonly string[],
): void {
  const port = request.socket.localPort;
  const names = listenHost === undefined ? LOOPBACK : [...LOOPBACK, hostName(listenHost)];
  const local = names.map((name) => (port === 80 ? name : `${name}:${port}`));
  const hosts = new Set([...local, ...origins.map((origin) => new URL(origin).host)]);
  const allowed = new Set([...local.map((host) => `http://${host}`), ...origins]);
  const host = request.headers.host?.toLowerCase();
  if (host === undefined || !hosts.has(host)) {
    throw new InboxError(
      403,
      `this inbox answers at ${[...hosts].join(", ")}, not at ${host === undefined ? "a request without a Host" : `Host ${host}`}: a page under another name (DNS rebinding) is refused; serve it under another name with createInbox's \`origins\``,
    );
  }
  const origin = request.headers.origin;
  if (origin !== undefined && !allowed.has(origin.toLowerCase())) {
    throw new InboxError(
      403,
      `a request from the page of ${origin} is refused: this inbox takes requests only from its own page (${[...allowed].join(", ")})`,
    );
  }
}

/** A host as it appears in `Host`: an IPv6 address in brackets, a name in lower case. */
function hostName(host: string): string {
  return host.includes(":") && !host.startsWith("[") ? `[${host}]` : host.toLowerCase();
}

/** Whether `host` (as given to `listen`) stands for every address, so names no one address. */
export function isWildcard(host: string): boolean {
  return host === "0.0.0.0" || host === "::" || host === "";
}
