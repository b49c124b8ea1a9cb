import type { Client } from "@modelcontextprotocol/sdk/client/index.js";

/** Why an MCP connection is closed, as calls, listings and steps say it. */
export interface ConnectionWatch {
  /** Why the connection is closed (or closing), or `undefined` while it is open. */
  why(): string | undefined;
  /** Notes that this package closed it, and why (before closing the client). */
  closeWith(reason: string): void;
  /** Gives the client back the `onclose` and `onerror` it had (when `mcpTools()` fails). */
  restore(): void;
}

/**
 * The MCP SDK's stdio transport reports a message over its `maxBufferSize` only as this error
 * (to `onerror`), then closes the connection, whose pending requests read "Connection closed".
 */
const OVERFLOW = /ReadBuffer exceeded maximum size of (\d+) bytes/;

/**
 * Watches a client's `onclose` and `onerror` (chaining the handlers it had), so that a closed
 * connection says why: closed by `close()`, over the stdio message limit, or just closed.
 * A `Client` whose owner later replaces `onclose` is still seen closed (its `transport` is gone).
 */
export function watchConnection(client: Client, label: string): ConnectionWatch {
  let closedWhy: string | undefined;
  let overLimit: number | undefined;
  const { onclose, onerror } = client;
  client.onerror = (error) => {
    overLimit ??= limitOf(error);
    onerror?.call(client, error);
  };
  client.onclose = () => {
    closedWhy ??=
      overLimit === undefined
        ? "the MCP server's connection is closed"
        : tooLarge(label, overLimit);
    onclose?.call(client);
  };
  return {
    why: () =>
      closedWhy ??
      (overLimit === undefined ? undefined : tooLarge(label, overLimit)) ??
      (client.transport === undefined ? "the MCP server's connection is closed" : undefined),
    closeWith: (reason) => {
      closedWhy ??= reason;
    },
    restore: () => {
      for (const [key, handler] of [
        ["onclose", onclose],
        ["onerror", onerror],
      ] as const) {
        if (handler === undefined) delete client[key];
        else client[key] = handler as never;
      }
    },
  };
}

/** The byte limit named by the SDK's "message too large" error, or `undefined` for any other. */
function limitOf(error: unknown): number | undefined {
  const match = error instanceof Error ? OVERFLOW.exec(error.message) : null;
  return match ? Number(match[1]) : undefined;
}

/** What a call says after the server sent a message over the stdio limit. */
function tooLarge(label: string, limit: number): string {
  return `the connection to ${label} closed after it sent a message of more than ${limit} bytes, over the stdio limit: the MCP SDK drops such a message and the connection with it (a tool result that large is lost). Raise the limit with mcpTools({ command, args, maxBufferSize }) or have the tool return less; this connection is not reopened: open a new toolset with mcpTools()`;
}
