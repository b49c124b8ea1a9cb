import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { jsonSchema, type Tool, type ToolAnnotations, tool } from "tollgate";
import { McpConnectionError, McpToolError } from "./errors.js";
import { type McpCallResult, outputOf } from "./results.js";

/** A tool as an MCP server lists it (`tools/list`), as far as this package reads it. */
export interface McpToolInfo {
  name: string;
  title?: string | undefined;
  description?: string | undefined;
  inputSchema: Record<string, unknown>;
  annotations?: Record<string, unknown> | undefined;
}

const HINTS = ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"] as const;

/**
 * The tollgate tool of one MCP tool, named `name`: its schema as JSON Schema (args validated
 * before the call), its annotations as the server gave them, `idempotent` from `idempotentHint`.
 * Calling it calls the server with the original name, cancelled by the run's signal; once
 * `closed()` says why the connection is closed, a call is a `McpConnectionError` saying so.
 */
export function mcpTool(
  client: Client,
  info: McpToolInfo,
  name: string,
  timeoutMs: number,
  closed: () => string | undefined,
): Tool {
  const annotations = annotationsOf(info);
  let input: ReturnType<typeof jsonSchema>;
  try {
    input = jsonSchema(info.inputSchema ?? { type: "object" });
  } catch (error) {
    throw new TypeError(
      `mcpTools(): MCP tool "${info.name}" has an input schema tollgate cannot use: ${(error as Error).message}`,
      { cause: error },
    );
  }
  return tool({
    name,
    description: info.description ?? info.title ?? "",
    input,
    annotations,
    idempotent: annotations.idempotentHint === true,
    execute: async (args, ctx) => {
      const why = closed();
      if (why !== undefined) throw new McpConnectionError(`MCP tool ${info.name}: ${why}`);
      let result: McpCallResult;
      try {
        result = (await client.callTool(
          { name: info.name, arguments: args as Record<string, unknown> },
          undefined,
          { signal: ctx.signal, timeout: timeoutMs },
        )) as McpCallResult;
      } catch (error) {
        throw failure(info.name, error, ctx.signal, closed);
      }
      return outputOf(info.name, result);
    },
  });
}

/** The MCP annotations tollgate knows, as the server gave them (nothing filled in). */
function annotationsOf(info: McpToolInfo): ToolAnnotations {
  const given = info.annotations ?? {};
  const out: Record<string, unknown> = {};
  for (const hint of HINTS) if (given[hint] !== undefined) out[hint] = given[hint];
  const title = given.title ?? info.title;
  if (title !== undefined) out.title = title;
  return out as ToolAnnotations;
}

/**
 * What a failed call throws: the run's abort reason, a connection error (saying why the
 * connection closed, when that is known: a message over the stdio limit), or the server's error.
 */
function failure(
  mcpName: string,
  error: unknown,
  signal: AbortSignal,
  closed: () => string | undefined,
): unknown {
  if (signal.aborted) return signal.reason;
  const message = (error as Error)?.message ?? String(error);
  const why = closed();
  const lost = !(error instanceof McpError) || error.code === ErrorCode.ConnectionClosed;
  if (why !== undefined && lost) {
    return new McpConnectionError(`MCP tool ${mcpName}: ${why}`, { cause: error });
  }
  if (error instanceof McpError) {
    if (error.code === ErrorCode.ConnectionClosed || error.code === ErrorCode.RequestTimeout) {
      return new McpConnectionError(`MCP tool ${mcpName}: ${message}`, { cause: error });
    }
    return new McpToolError(mcpName, `MCP tool ${mcpName}: ${message}`);
  }
  return new McpConnectionError(`MCP tool ${mcpName}: the connection failed: ${message}`, {
    cause: error,
  });
}
