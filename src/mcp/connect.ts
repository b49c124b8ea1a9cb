import type { IOType } from "node:child_process";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { McpConnectionError } from "./errors.js";
import { readLinearly } from "./line-buffer.js";
import { checkHttpSource, checkStdioSource } from "./source-checks.js";

/** A server to start as a child process and talk to over stdio. */
export interface McpStdioSource {
  command: string;
  args?: string[] | undefined;
  /** The child's environment (default: the SDK's safe subset of this process's). */
  env?: Record<string, string> | undefined;
  cwd?: string | undefined;
  /** What to do with the child's stderr: "inherit" (the default), "ignore", "pipe" or "overlapped". */
  stderr?: IOType | undefined;
  /**
   * The largest message the server may send, in bytes (the MCP SDK's `maxBufferSize`; default
   * 10 MiB). A larger one closes the connection: the call's error says so and names this option.
   */
  maxBufferSize?: number | undefined;
}

/** A server to reach over Streamable HTTP. */
export interface McpHttpSource {
  url: string | URL;
  headers?: Record<string, string> | undefined;
}

/** Where `mcpTools` gets its tools: a connected MCP SDK `Client`, or a server to connect to. */
export type McpSource = Client | McpStdioSource | McpHttpSource;

/** An open connection: the client, and how to close what this package opened. */
export interface McpConnection {
  client: Client;
  /** True when `mcpTools` opened the connection (and so closes it). */
  owned: boolean;
}

const CLIENT_INFO = { name: "tollgate", version: "0.1.0" };

/** Connects to the source (or takes the given client as it is); fails closed on any other value. */
export async function connect(source: McpSource, timeoutMs: number): Promise<McpConnection> {
  if (isClient(source)) return { client: source, owned: false };
  const transport = transportOf(source);
  const client = new Client(CLIENT_INFO, { capabilities: {} });
  try {
    await client.connect(transport, { timeout: timeoutMs });
  } catch (error) {
    await client.close().catch(() => {});
    throw new McpConnectionError(
      `mcpTools(): could not connect to ${describe(source)}: ${(error as Error)?.message ?? error}`,
      { cause: error },
    );
  }
  return { client, owned: true };
}

function isClient(source: unknown): source is Client {
  return (
    source instanceof Client ||
    (typeof source === "object" &&
      source !== null &&
      typeof (source as Client).callTool === "function" &&
      typeof (source as Client).listTools === "function")
  );
}

function transportOf(source: McpSource) {
  const given = source as unknown as Record<string, unknown>;
  if (typeof source !== "object" || source === null || Array.isArray(source)) {
    throw new TypeError(
      `mcpTools(): expected a connected MCP Client, { command, args? } or { url }; got ${source === null ? "null" : typeof source}`,
    );
  }
  const keys = Object.keys(source);
  if ("command" in given && "url" in given) {
    throw new TypeError("mcpTools(): give either { command } (stdio) or { url } (HTTP), not both");
  }
  if ("command" in given) {
    checkSourceKeys(keys, ["command", "args", "env", "cwd", "stderr", "maxBufferSize"]);
    checkStdioSource(given);
    const {
      command,
      args = [],
      env,
      cwd,
      stderr,
      maxBufferSize,
    } = given as unknown as McpStdioSource;
    const transport = new StdioClientTransport({
      command,
      args,
      ...(env === undefined ? {} : { env }),
      ...(cwd === undefined ? {} : { cwd }),
      ...(stderr === undefined ? {} : { stderr }),
      ...(maxBufferSize === undefined ? {} : { maxBufferSize }),
    });
    readLinearly(transport, maxBufferSize);
    return transport;
  }
  if ("url" in given) {
    checkSourceKeys(keys, ["url", "headers"]);
    const url = checkHttpSource(given);
    const headers = given.headers as Record<string, string> | undefined;
    return new StreamableHTTPClientTransport(
      url,
      headers === undefined ? undefined : { requestInit: { headers } },
    );
  }
  throw new TypeError(
    "mcpTools(): expected a connected MCP Client, { command, args? } (stdio) or { url, headers? } (Streamable HTTP)",
  );
}

function checkSourceKeys(keys: string[], known: string[]): void {
  const unknown = keys.find((key) => !known.includes(key));
  if (unknown !== undefined) {
    throw new TypeError(
      `mcpTools(): unknown source key \`${unknown}\`; the keys are ${known.map((k) => `\`${k}\``).join(", ")}`,
    );
  }
}

function describe(source: McpSource): string {
  const given = source as unknown as Partial<McpStdioSource & McpHttpSource>;
  return given.command !== undefined ? `the command "${given.command}"` : String(given.url);
}
