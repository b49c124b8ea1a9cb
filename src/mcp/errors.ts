import { DuplicateToolError, TollgateError } from "tollgate";

/**
 * An MCP server answered a call with `isError: true`. Thrown by the tool's `execute`, so the
 * model sees it as the call's error result (the run goes on); `structuredContent` is the
 * server's structured error, when it gave one.
 */
export class McpToolError extends TollgateError {
  /** The result's `structuredContent`, as the server sent it (`undefined` when it sent none). */
  readonly structuredContent: Record<string, unknown> | undefined;

  constructor(
    readonly toolName: string,
    message: string,
    structuredContent?: Record<string, unknown>,
  ) {
    super(message);
    this.structuredContent = structuredContent;
  }
}

/**
 * The MCP connection failed: it was closed, the server crashed or stopped answering, a request
 * timed out, or it answered with something that is not MCP. As a call's failure, the model sees
 * it as the call's error result; from `mcpTools()` or a refresh, it is thrown.
 */
export class McpConnectionError extends TollgateError {}

/**
 * An MCP tool's name is taken: two tools of one server map to one tollgate name (after the
 * prefix and the name mapping), or a server's new listing has the name of another tool of the
 * loop (a local tool, or another server's). A `DuplicateToolError` whose message names both.
 */
export class McpToolNameError extends DuplicateToolError {}
