import type { ToolCall } from "./messages.js";
import type { ModelRequest } from "./provider.js";
import type { Tool, ToolContext } from "./tool.js";
import type { Toolset } from "./toolset.js";

/** The policy's answer for one call; `undefined` defers to the default (the tool's `needsApproval`, then ALLOW). */
export type Decision =
  | "ALLOW"
  | "DENY"
  | "NEEDS_APPROVAL"
  | { decision: "ALLOW" | "DENY" | "NEEDS_APPROVAL"; reason?: string }
  | undefined
  | void;

/** What `prepareStep` may return for the richer case: the tools shown, the ones that may run, the tool choice. */
export interface StepTools<Deps = unknown> {
  /** Shown to the model. */
  tools: Tool<Deps>[] | string[];
  /** May run (default: all shown). Keeping `tools` stable while narrowing this keeps prompt caches warm. */
  callable?: string[];
  toolChoice?: ModelRequest["toolChoice"];
}

/** What `prepareStep` may return; `undefined` shows every tool. */
export type PreparedStep<Deps> =
  | Tool<Deps>[]
  | Toolset<Deps>
  | string[]
  | StepTools<Deps>
  | undefined
  | void;

/**
 * The loop's policy: who may run (`decideToolCall`), when a result ends the run (`endsRun`),
 * which tools each step offers (`prepareStep`), and how a tool is executed (`executeTool`).
 * Every method is optional.
 */
export interface LoopPolicy<Deps = unknown> {
  decideToolCall?(args: {
    call: ToolCall;
    tool: Tool<Deps>;
    needsApproval: boolean;
    step: number;
    deps: Deps;
  }): Decision | Promise<Decision>;
  endsRun?(args: {
    call: ToolCall;
    output: unknown;
    tools: Tool<Deps>[];
  }): boolean | Promise<boolean>;
  prepareStep?(args: {
    stepIndex: number;
    executed: string[];
    tools: Toolset<Deps>;
  }): PreparedStep<Deps> | Promise<PreparedStep<Deps>>;
  executeTool?(args: {
    call: ToolCall;
    tool: Tool<Deps>;
    tools: Tool<Deps>[];
    stepIndex: number;
    signal: AbortSignal;
    ctx: ToolContext<Deps>;
  }): Promise<unknown>;
}
