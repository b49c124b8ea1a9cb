import type { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import {
  deserializeMessage,
  ReadBuffer,
  STDIO_DEFAULT_MAX_BUFFER_SIZE,
} from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

/**
 * The MCP SDK's `ReadBuffer`, reading in linear time. The SDK's copies its whole buffer on each
 * chunk and searches all of it for a newline: 10 MiB arrive in about 160 chunks of 64 KiB, so
 * about 800 MB are copied and as much searched (seconds of CPU, in slices that each block the
 * event loop longer than the last). This one keeps the chunks, looks for a newline only in the
 * new one, and joins a message once. Same limit, same error, same messages.
 */
export class LineBuffer {
  private pending: Buffer[] = [];
  private pendingSize = 0;
  private lines: Buffer[] = [];

  constructor(private readonly maxBufferSize: number) {}

  /** Takes a chunk of the stream; throws (and forgets what it held) past the limit, as the SDK's does. */
  append(chunk: Buffer): void {
    if (this.pendingSize + chunk.length > this.maxBufferSize) {
      this.clear();
      throw new Error(`ReadBuffer exceeded maximum size of ${this.maxBufferSize} bytes`);
    }
    let from = 0;
    for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, from)) {
      this.pending.push(chunk.subarray(from, at));
      this.lines.push(Buffer.concat(this.pending));
      this.pending = [];
      this.pendingSize = 0;
      from = at + 1;
    }
    if (from < chunk.length) {
      this.pending.push(chunk.subarray(from));
      this.pendingSize += chunk.length - from;
    }
  }

  /** The next whole message, or `null`; a line that is not a JSON-RPC message throws (and is gone). */
  readMessage(): JSONRPCMessage | null {
    const line = this.lines.shift();
    return line === undefined ? null : deserializeMessage(line.toString("utf8").replace(/\r$/, ""));
  }

  /** Forgets everything held. */
  clear(): void {
    this.pending = [];
    this.pendingSize = 0;
    this.lines = [];
  }
}

/**
 * Gives a stdio transport a `LineBuffer` in place of the SDK's buffer, when the transport holds
 * one where this SDK version keeps it (a private field); else leaves it as it is (slower, same
 * behaviour).
 */
export function readLinearly(transport: StdioClientTransport, maxBufferSize?: number): void {
  const fields = transport as unknown as { _readBuffer?: unknown };
  if (!(fields._readBuffer instanceof ReadBuffer)) return;
  fields._readBuffer = new LineBuffer(maxBufferSize ?? STDIO_DEFAULT_MAX_BUFFER_SIZE);
}
