import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { McpConnectionError } from "./errors.js";
import type { McpToolInfo } from "./mcp-tool.js";

/**
 * Every tool the server lists, page by page, as one listing that must finish within `timeoutMs`
 * (all its pages together) and may not hand back a cursor twice: a server cannot keep a listing
 * (and so a step) going forever. `closed` says why the connection closed, if it did.
 */
export async function listTools(
  client: Client,
  timeoutMs: number,
  closed: () => string | undefined,
): Promise<McpToolInfo[]> {
  const deadline = Date.now() + timeoutMs;
  const cursors = new Set<string>();
  const tools: McpToolInfo[] = [];
  let cursor: string | undefined;
  do {
    const left = deadline - Date.now();
    if (left <= 0) throw tooSlow(timeoutMs, cursors.size);
    let page: Awaited<ReturnType<Client["listTools"]>>;
    try {
      page = await client.listTools(cursor === undefined ? {} : { cursor }, { timeout: left });
    } catch (error) {
      if (Date.now() >= deadline) throw tooSlow(timeoutMs, cursors.size, error);
      const why = closed() ?? (error as Error)?.message ?? String(error);
      throw new McpConnectionError(`mcpTools(): the server's tools could not be listed: ${why}`, {
        cause: error,
      });
    }
    tools.push(...(page.tools as McpToolInfo[]));
    cursor = page.nextCursor;
    if (cursor !== undefined && cursors.has(cursor)) throw cursorAgain(cursor, cursors.size);
    if (cursor !== undefined) cursors.add(cursor);
  } while (cursor !== undefined);
  return tools;
}

/** The error of a listing that took longer than `timeoutMs`, all its pages together. */
function tooSlow(timeoutMs: number, pages: number, cause?: unknown): McpConnectionError {
  return new McpConnectionError(
    `mcpTools(): the server's tool listing did not finish within ${timeoutMs} ms (${pages + 1} pages asked for): a listing, all its pages, must finish within timeoutMs; raise timeoutMs for a server that lists slowly`,
    cause === undefined ? undefined : { cause },
  );
}

/** The error of a listing whose server hands back a cursor it gave before (it would never end). */
function cursorAgain(cursor: string, pages: number): McpConnectionError {
  const shown = cursor.length > 60 ? `${cursor.slice(0, 60)}…` : cursor;
  return new McpConnectionError(
    `mcpTools(): the server's tool listing handed back the cursor ${JSON.stringify(shown)} again (after ${pages + 1} pages), so it would never end; the server's pagination is broken`,
  );
}
