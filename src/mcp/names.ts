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
