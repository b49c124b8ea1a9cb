import type { LoopEvent, RunResult } from "tollgate";
import { approvalIdOf, chatCallId } from "./approval-id.js";
import type { UIMessageChunk } from "./ui-message.js";

/** What the chat is shown of a call's output (`toolOutput` of `toUIMessageStream`). */
export type ToolOutputView = (
  output: unknown,
  call: { toolName: string; toolCallId: string; isError: boolean },
) => unknown;

/** A tool event of the run or of a sub-agent's run, with the chat's id of its call. */
type ToolEvent = Extract<LoopEvent, { type: "tool-call" | "tool-decision" | "tool-result" }>;

/**
 * Turns a run's events, one by one, into UI message stream chunks. It keeps what the protocol
 * needs and the events do not say: which text or reasoning part is open, which calls the chat
 * already has a part for, and which calls a human refused.
 */
export class ChunkWriter {
  #open: { kind: "text" | "reasoning"; id: string } | undefined;
  #parts = 0;
  /** Calls with a `tool-input-start` sent. */
  readonly #started = new Set<string>();
  /** This step's streamed calls by index: their id and name, once known. */
  #streaming = new Map<number, { id?: string; name?: string; buffered: string }>();
  /** Each call's args as the model sent them, kept for a call whose args did not parse. */
  readonly #rawArgs = new Map<string, string>();
  /** Calls whose args did not parse: their result is a `tool-input-error`. */
  readonly #unparsed = new Set<string>();
  /** Calls a human refused: their result is a `tool-output-denied`. */
  readonly #refused = new Set<string>();
  /** Whether this stream wrote the open step's `start-step` (a resumed step's was written before). */
  #inStep = false;

  constructor(
    private readonly show: ToolOutputView,
    private readonly messageId: string | undefined,
    /** The chat's ids of client-side calls the page answered (a resume's `addToolOutput`s). */
    private readonly answeredByPage: ReadonlySet<string> = new Set(),
  ) {}

  /** The chunks of one event (none for most events a chat has no use for). */
  async write(event: LoopEvent): Promise<UIMessageChunk[]> {
    switch (event.type) {
      case "run-start":
        return [
          event.resumed || this.messageId === undefined
            ? { type: "start" }
            : { type: "start", messageId: this.messageId },
        ];
      case "step-start":
        this.#streaming = new Map();
        this.#inStep = true;
        return [...this.close(), { type: "start-step" }];
      case "text-delta":
      case "reasoning-delta":
        return this.delta(event.type === "text-delta" ? "text" : "reasoning", event.text);
      case "tool-call-delta":
        return [...this.close(), ...this.callDelta(event)];
      case "model-response":
        return this.close();
      case "tool-call":
      case "tool-decision":
      case "tool-result":
        return this.tool(event, "");
      case "sub-run":
        return this.subRun(event, "");
      case "step-finish": {
        const ended: UIMessageChunk[] = this.#inStep ? [{ type: "finish-step" }] : [];
        this.#inStep = false;
        return [...this.close(), ...ended];
      }
      case "run-finish":
        return [...this.close(), ...(await this.finish(event.result))];
      case "model-hook":
        // A model-side hook's verdict carries no content, and a chat has no part for it: a
        // redacted, stopped or blocked response's deltas were held back by the loop, so none reached here.
        return [];
      default:
        return [];
    }
  }

  /** The end of an open text or reasoning part, if one is open. */
  close(): UIMessageChunk[] {
    const open = this.#open;
    if (open === undefined) return [];
    this.#open = undefined;
    return [{ type: open.kind === "text" ? "text-end" : "reasoning-end", id: open.id }];
  }

  private delta(kind: "text" | "reasoning", text: string): UIMessageChunk[] {
    if (text === "") return [];
    const chunks: UIMessageChunk[] = [];
    if (this.#open?.kind !== kind) {
      chunks.push(...this.close());
      this.#open = { kind, id: `${kind}-${this.#parts++}` };
      chunks.push({ type: kind === "text" ? "text-start" : "reasoning-start", id: this.#open.id });
    }
    const id = this.#open.id;
    chunks.push(
      kind === "text"
        ? { type: "text-delta", id, delta: text }
        : { type: "reasoning-delta", id, delta: text },
    );
    return chunks;
  }

  /** A streamed piece of a call's args: the part starts once its id and name are known. */
  private callDelta(event: Extract<LoopEvent, { type: "tool-call-delta" }>): UIMessageChunk[] {
    const call = this.#streaming.get(event.index) ?? { buffered: "" };
    this.#streaming.set(event.index, call);
    if (event.id !== undefined) call.id = event.id;
    if (event.name !== undefined) call.name = event.name;
    if (call.id === undefined || call.name === undefined) {
      call.buffered += event.argsDelta;
      return [];
    }
    const chunks = this.start(call.id, call.name);
    const text = call.buffered + event.argsDelta;
    call.buffered = "";
    if (text !== "")
      chunks.push({ type: "tool-input-delta", toolCallId: call.id, inputTextDelta: text });
    return chunks;
  }

  private start(toolCallId: string, toolName: string): UIMessageChunk[] {
    if (this.#started.has(toolCallId)) return [];
    this.#started.add(toolCallId);
    return [{ type: "tool-input-start", toolCallId, toolName }];
  }

  /** A call's decision or result; `prefix` is the call path of a sub-agent's call. */
  private tool(event: ToolEvent, prefix: string): UIMessageChunk[] {
    const toolCallId = prefix + event.toolCallId;
    const { toolName } = event;
    if (event.type === "tool-call") {
      this.#rawArgs.set(toolCallId, event.rawArgs);
      return [];
    }
    if (event.type === "tool-decision") {
      if (event.by === "approval") {
        if (event.verdict === "deny") this.#refused.add(toolCallId);
        return []; // a human's decision on resume: the chat has the part, and the answer
      }
      if (event.call === undefined) {
        this.#unparsed.add(toolCallId);
        return [];
      }
      const input = event.call.args;
      return [
        ...this.start(toolCallId, toolName),
        { type: "tool-input-available", toolCallId, toolName, input },
      ];
    }
    // A client-side tool's result on resume: the page wrote it, and its part shows it already.
    if (this.answeredByPage.has(toolCallId)) return [];
    const shown = this.show(event.output, { toolName, toolCallId, isError: event.isError });
    const text = typeof shown === "string" ? shown : JSON.stringify(shown ?? null);
    if (this.#unparsed.has(toolCallId)) {
      const input = this.#rawArgs.get(toolCallId) ?? "";
      return [
        ...this.start(toolCallId, toolName),
        { type: "tool-input-error", toolCallId, toolName, input, errorText: text },
      ];
    }
    if (this.#refused.has(toolCallId)) return [{ type: "tool-output-denied", toolCallId }];
    if (event.isError) return [{ type: "tool-output-error", toolCallId, errorText: text }];
    return [{ type: "tool-output-available", toolCallId, output: shown }];
  }

  /**
   * A sub-agent's event: its calls' decisions and results, under the parent call's path (the
   * chat's id of a sub-agent's call is `parentCallId/callId`, as its decision's key is).
   */
  private subRun(event: Extract<LoopEvent, { type: "sub-run" }>, prefix: string): UIMessageChunk[] {
    const path = `${prefix}${event.toolCallId}/`;
    const inner = event.event;
    if (
      inner.type === "tool-call" ||
      inner.type === "tool-decision" ||
      inner.type === "tool-result"
    ) {
      return this.tool(inner, path);
    }
    if (inner.type === "sub-run") return this.subRun(inner, path);
    return [];
  }

  /** The run's end: an approval request for each pending call, then `finish`. */
  private async finish(result: RunResult): Promise<UIMessageChunk[]> {
    const chunks: UIMessageChunk[] = [];
    for (const call of result.pending ?? []) {
      const request: UIMessageChunk = {
        type: "tool-approval-request",
        approvalId: await approvalIdOf(call),
        toolCallId: chatCallId(call),
      };
      chunks.push(call.reason === undefined ? request : { ...request, reason: call.reason });
    }
    chunks.push({ type: "finish", finishReason: result.finishReason });
    return chunks;
  }
}
