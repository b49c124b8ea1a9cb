import type { StandardSchema } from "./schema.js";
import type { ToolAnnotations } from "./tool-annotations.js";

/** What a tool's `execute` (and `needsApproval`, and the policy's `executeTool`) gets besides its args. */
export interface ToolContext<Deps = unknown> {
  /** The dependencies given to the loop (or to this run). */
  deps: Deps;
  /** Unique id of this call. */
  toolCallId: string;
  toolName: string;
  /** This tool's failures so far in this run (0 = none yet). */
  retry: number;
  maxRetries: number;
  /** 0-based step of the run that asked for the call. */
  step: number;
  /**
   * Aborted when the run is aborted or the tool times out. The run's signal is made when first
   * read (a spread `{ ...ctx }` reads it): a tool that never reads it costs the run none.
   */
  signal: AbortSignal;
  /** The args' JSON text exactly as the model sent it. */
  rawArgs: string;
}

/**
 * Whether a call needs a human's approval: fixed, or decided per call from the args in the
 * model's form (the JSON it sent, completed with the schema's defaults, checked against the
 * schema, after hooks), not the schema's output.
 */
export type NeedsApproval<Deps, Args> =
  | boolean
  | ((args: Args, ctx: ToolContext<Deps>) => boolean | Promise<boolean>);

/**
 * A tool as the loop sees it: frozen, its JSON Schema computed once. Build one with `tool()`.
 * `Args` is what `execute` gets (the schema's output); `In` is the args in the model's form
 * (the schema's input), as hooks, the policy and approvals see them.
 */
export interface Tool<Deps = unknown, Args = any, In = unknown> {
  readonly name: string;
  readonly description: string;
  /** The schema as given (zod, Standard Schema, or `jsonSchema()`). */
  readonly input: StandardSchema<In, Args>;
  /** The JSON Schema sent to the model. */
  readonly inputSchema: Record<string, unknown>;
  readonly maxRetries: number;
  /** Gets the args in the model's form (the schema's input side), not `Args`. */
  readonly needsApproval: NeedsApproval<Deps, any>;
  readonly timeoutMs?: number;
  /** True: runs alone; earlier calls of the step settle first, later ones wait. */
  readonly sequential: boolean;
  /** True: safe to run again when a crash left its outcome unknown. */
  readonly idempotent: boolean;
  /**
   * True: a client-side tool. It never runs here: an allowed call pauses the run
   * (`needs_results`) until `resume()` supplies its result. Its `execute` throws.
   */
  readonly external: boolean;
  /** A client-side tool's output schema: each result given on resume is checked against it. */
  readonly output?: StandardSchema;
  /** What the tool says of itself (MCP's hints): frozen, `{}` when none were given. */
  readonly annotations: ToolAnnotations;
  execute(args: Args, ctx: ToolContext<Deps>): unknown;
}
