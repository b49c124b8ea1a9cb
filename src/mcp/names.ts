import type { Tool } from "tollgate";
import { TOOL_NAME } from "../util/tool-name.js";

/**
 * The tollgate name of an MCP tool: `prefix` + its name, with every character tollgate does not
 * accept (anything but `a-z A-Z 0-9 _ -`) as `_`, cut to 64 characters. The server is still
 * called with the original name.
 */
export function mappedName(mcpName: string, prefix: string): string {
  const name = `${prefix}${mcpName}`.replace(/[^a-zA-Z0-9_-]/g, "_").slice(0, 64);
  return name.length === 0 ? "_" : name;
}

/** Checks a prefix: it must leave room for a name and use only the characters names use. */
export function checkPrefix(prefix: unknown): string {
  if (prefix === undefined) return "";
  if (typeof prefix !== "string" || (prefix !== "" && !TOOL_NAME.test(prefix))) {
    throw new TypeError(
      `mcpTools(): prefix must be a string of up to 63 letters, digits, "_" or "-", e.g. "fs_"; got ${JSON.stringify(prefix)}`,
    );
  }
  if (prefix.length > 63) {
    throw new TypeError("mcpTools(): prefix must leave room for a name (63 characters at most)");
  }
  return prefix;
}

/** One `mcpTools()` connection, as its tools' errors name it. */
export interface McpOrigin {
  /** `MCP server "name"`, from the server's own `serverInfo`. */
  readonly label: string;
}

/**
 * Which connection made a tool, and the server's name for it, keyed by the tool's `execute`:
 * a copy of the tool (`withMaxRetries`, a spread) keeps its `execute`, so it is still known.
 */
const ORIGINS = new WeakMap<object, { origin: McpOrigin; mcpName: string }>();

/** Records that `origin` made `tool`, which the server lists as `mcpName`. */
export function noteOrigin(tool: Tool, origin: McpOrigin, mcpName: string): void {
  ORIGINS.set(tool.execute, { origin, mcpName });
}

/** The connection that made `tool` (or a copy of it); `undefined` for any other tool. */
export function originOf(tool: Tool<any>): McpOrigin | undefined {
  return ORIGINS.get(tool.execute)?.origin;
}

/** The server's own name for a tool `noteOrigin` saw; its tollgate name for any other. */
export function mcpNameOf(tool: Tool<any>): string {
  return ORIGINS.get(tool.execute)?.mcpName ?? tool.name;
}

/** A tool, as a name clash's message names it: `MCP server "a"'s tool "x"` or `the local tool "x"`. */
export function describeTool(tool: Tool<any>): string {
  const origin = originOf(tool);
  return origin ? `${origin.label}'s tool "${tool.name}"` : `the local tool "${tool.name}"`;
}
