import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { TollgateError, type Tool, Toolset } from "tollgate";
import { checkKeys, shownValue } from "../util/option-keys.js";
import { connect, type McpSource } from "./connect.js";
import { type ConnectionWatch, watchConnection } from "./connection-watch.js";
import { McpConnectionError, McpToolNameError } from "./errors.js";
import { listTools } from "./list-tools.js";
import { type McpToolInfo, mcpTool } from "./mcp-tool.js";
import {
  checkPrefix,
  describeTool,
  type McpOrigin,
  mappedName,
  mcpNameOf,
  noteOrigin,
  originOf,
} from "./names.js";
import { relisting } from "./relisting.js";

/** Options of `mcpTools`. */
export interface McpToolsOptions {
  /** Put before every tool's name, e.g. `"fs_"` (tools of two servers then cannot clash). */
  prefix?: string | undefined;
  /** Only these MCP tools (by the server's names); a name the server does not list is a `TypeError`. */
  include?: string[] | undefined;
  /**
   * All MCP tools but these (by the server's names); a name the server does not list when first
   * connected, or a name also in `include`, is a `TypeError`.
   */
  exclude?: string[] | undefined;
  /**
   * How long one MCP request (connect, call) or one listing of the tools (all its pages) may
   * take, in ms (default 60 000).
   */
  timeoutMs?: number | undefined;
  /**
   * Called with the new set after each refresh (`notifications/tools/list_changed`). If it
   * throws, the refresh has failed: the next step's `prepareStep` rejects with its error.
   */
  onToolsChanged?: ((tools: Toolset) => void) | undefined;
}

const OPTION_KEYS = ["prefix", "include", "exclude", "timeoutMs", "onToolsChanged"];

/**
 * A `Toolset` of an MCP server's tools, plus what its connection needs: the set as the server
 * lists it now (`current()`, refreshed on `notifications/tools/list_changed`), a `prepareStep`
 * that offers the refreshed tools from the next step on, and `close()`.
 */
export type McpToolset = Toolset & {
  /** The server's tools as of the last refresh (this object holds them as first listed). */
  current(): Toolset;
  /**
   * Lists the server's tools again (once the listing that runs, if one does, is done); the next
   * step's `prepareStep` offers them.
   */
  refresh(): Promise<Toolset>;
  /**
   * A `LoopPolicy.prepareStep` that shows the loop's other tools and this server's current
   * ones: tools the server added since are offered from the next step on, removed ones are
   * not. It offers a complete listing asked for after every change the server announced before
   * the step (waiting for at most two listings, so a server cannot stall the step). A failed
   * refresh, a closed connection, or a new tool whose name another tool of the loop has
   * (`McpToolNameError`: the server never takes a name) rejects the step (fail closed). Call it
   * from your own `prepareStep` to combine both.
   */
  prepareStep(args: { tools: Toolset<any> }): Promise<Tool<any>[]>;
  /**
   * Closes the connection `mcpTools` opened (a `Client` you passed is left open). Until then a
   * stdio server's child process keeps this process alive: close in `finally`, or use
   * `await using`. After it, a call is a `McpConnectionError` result and `prepareStep` rejects.
   */
  close(): Promise<void>;
  /** `close()`, for `await using fs = await mcpTools(...)`. */
  [Symbol.asyncDispose](): Promise<void>;
};

/**
 * Connects to an MCP server (or takes a connected SDK `Client`) and returns its tools as a
 * `Toolset`: each tool's input schema is its JSON Schema (args are validated before the call),
 * its annotations are the server's hints, and a call is cancelled when the run is aborted.
 *
 * @example
 * const fs = await mcpTools({ command: "npx", args: ["@modelcontextprotocol/server-filesystem", dir] }, { prefix: "fs_" });
 * const loop = new AgentLoop({ provider, tools: fs, policy: { prepareStep: fs.prepareStep } });
 * // ...
 * await fs.close();
 */
export async function mcpTools(
  source: McpSource,
  options: McpToolsOptions = {},
): Promise<McpToolset> {
  checkKeys("mcpTools()", options, OPTION_KEYS);
  const prefix = checkPrefix(options.prefix);
  const include = nameList("include", options.include);
  const exclude = nameList("exclude", options.exclude);
  const { timeoutMs = 60_000, onToolsChanged } = options;
  const both = include?.find((name) => exclude?.includes(name));
  if (both !== undefined) {
    throw new TypeError(`mcpTools(): "${both}" is in both include and exclude; keep it in one`);
  }
  if (!(typeof timeoutMs === "number" && Number.isFinite(timeoutMs) && timeoutMs > 0)) {
    throw new TypeError(
      `mcpTools(): timeoutMs must be a positive number of milliseconds, got ${shownValue(timeoutMs)}`,
    );
  }
  if (onToolsChanged !== undefined && typeof onToolsChanged !== "function") {
    throw new TypeError("mcpTools(): onToolsChanged must be a function");
  }
  const { client, owned } = await connect(source, timeoutMs);
  const origin: McpOrigin = { label: serverLabel(client) };
  const watch = watchConnection(client, origin.label);
  const build = async (first: boolean): Promise<Toolset> => {
    const listed = await listTools(client, timeoutMs, watch.why);
    if (first) checkNames(listed, include, exclude);
    const chosen = listed.filter(
      (info) => (!include || include.includes(info.name)) && !exclude?.includes(info.name),
    );
    return toolsetOf(client, chosen, { prefix, timeoutMs, closed: watch.why, origin });
  };
  let current: Toolset;
  try {
    current = await build(true);
  } catch (error) {
    watch.restore();
    if (owned) await client.close().catch(() => {});
    throw error;
  }
  let refreshError: unknown;
  const relist = relisting(async (): Promise<Toolset> => {
    let tools: Toolset;
    try {
      tools = await build(false);
    } catch (error) {
      refreshError = new McpConnectionError(
        `the MCP server's tools could not be listed again: ${messageOf(error)}`,
        { cause: error },
      );
      throw error;
    }
    current = tools;
    refreshError = undefined;
    try {
      onToolsChanged?.(tools);
    } catch (error) {
      refreshError = new TollgateError(`mcpTools(): onToolsChanged threw: ${messageOf(error)}`, {
        cause: error,
      });
      throw refreshError;
    }
    return tools;
  }, current);
  client.setNotificationHandler(ToolListChangedNotificationSchema, async () => relist.changed());
  const set = current as McpToolset;
  const close = async () => {
    watch.closeWith("this toolset was closed (close() was called); open a new one with mcpTools()");
    client.removeNotificationHandler("notifications/tools/list_changed");
    if (owned) await client.close();
  };
  Object.assign(set, {
    current: () => current,
    refresh: relist.refresh,
    close,
    prepareStep: async ({ tools }: { tools: Toolset<any> }): Promise<Tool<any>[]> => {
      failIfClosed(watch);
      await relist.fresh();
      failIfClosed(watch);
      if (refreshError !== undefined) throw refreshError;
      // This server's tools (as listed before, or copies of them) make way for its current ones;
      // any other tool keeps its name, so a name the server takes from it is a clash.
      const others = [...tools].filter((tool) => originOf(tool) !== origin);
      const clash = others.find((tool) => current.find(tool.name));
      if (clash) throw nameTaken(origin, current.get(clash.name), clash);
      return [...others, ...current];
    },
  });
  if (typeof Symbol.asyncDispose === "symbol") {
    Object.defineProperty(set, Symbol.asyncDispose, { value: close });
  }
  return set;
}

/** A step over a closed connection does not start: `McpConnectionError` saying why. */
function failIfClosed(watch: ConnectionWatch): void {
  const why = watch.why();
  if (why !== undefined) throw new McpConnectionError(why);
}

/** The server as errors name it: `MCP server "name"` from its `serverInfo`. */
function serverLabel(client: Client): string {
  const name = client.getServerVersion()?.name;
  return typeof name === "string" && name !== ""
    ? `MCP server ${JSON.stringify(name)}`
    : "an MCP server";
}

/** The error for a server's new tool whose name another tool of the loop already has. */
function nameTaken(origin: McpOrigin, listed: Tool, other: Tool<any>): McpToolNameError {
  const { name } = listed;
  return new McpToolNameError(
    name,
    `${origin.label} now lists a tool named "${name}", the name of ${describeTool(other)}; the step did not start, so no call reaches the wrong tool: give the server a prefix (mcpTools(source, { prefix })) or leave its tool out (exclude: ["${mcpNameOf(listed)}"])`,
  );
}

/** An error's message, safely. */
function messageOf(error: unknown): string {
  try {
    return error instanceof Error ? error.message : String(error);
  } catch {
    return "an error that cannot be shown as text";
  }
}

/** On the first listing: every name in `include` and `exclude` must be one the server lists. */
function checkNames(
  listed: McpToolInfo[],
  include: string[] | undefined,
  exclude: string[] | undefined,
): void {
  for (const [key, names] of [
    ["include", include],
    ["exclude", exclude],
  ] as const) {
    const missing = names?.find((name) => !listed.some((info) => info.name === name));
    if (missing !== undefined) {
      throw new TypeError(
        `mcpTools(): ${key} names "${missing}", which the server does not list (it has: ${listed.map((t) => t.name).join(", ")})`,
      );
    }
  }
}

function nameList(key: string, value: unknown): string[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || !value.every((name) => typeof name === "string")) {
    throw new TypeError(`mcpTools(): ${key} must be an array of MCP tool names`);
  }
  return value;
}

/** What `toolsetOf` builds each tool with. */
interface BuildOptions {
  prefix: string;
  timeoutMs: number;
  closed: () => string | undefined;
  origin: McpOrigin;
}

/**
 * The tools under their tollgate names, each noted as `origin`'s; two MCP tools that map to one
 * name are an error naming both.
 */
function toolsetOf(
  client: Client,
  listed: McpToolInfo[],
  { prefix, timeoutMs, closed, origin }: BuildOptions,
): Toolset {
  const byName = new Map<string, string>();
  const tools = listed.map((info) => {
    const name = mappedName(info.name, prefix);
    const taken = byName.get(name);
    if (taken !== undefined) {
      throw new McpToolNameError(
        name,
        `mcpTools(): MCP tools "${taken}" and "${info.name}" both map to the tool name "${name}"; leave one out with exclude`,
      );
    }
    byName.set(name, info.name);
    const made = mcpTool(client, info, name, timeoutMs, closed);
    noteOrigin(made, origin, info.name);
    return made;
  });
  return Toolset.from(tools);
}
