import type { Tool } from "./tool.js";

/**
 * What `repairToolCall` gets: a call whose args failed parsing or validation (the model's
 * raw text), the problem, the tool it was meant for, and the step.
 */
export interface RepairInfo<Deps = unknown> {
  call: { id: string; name: string; rawArgs: string };
  /** Why the args were turned away (JSON, a limit, or the schema's issues). */
  error: string;
  tool: Tool<Deps>;
  step: number;
}

/**
 * Fixes the args of a call that failed parsing or validation: returns the fixed args as JSON
 * data in the model's form (validated again, then gated like the model's own), or `undefined`
 * to leave the call invalid. Counted like a retry; a throw or args JSON cannot carry reject
 * the run with `PolicyError`.
 */
export type RepairToolCall<Deps = unknown> = (info: RepairInfo<Deps>) => unknown;

/**
 * The results whose text `formatToolError` controls: a hook's block, a policy's (or hook's)
 * denial, invalid args, a tool that is not callable, and a human's refusal (also a refusal
 * remembered from earlier in the run) — calls that did not run — and `"withheld"`: a call that
 * ran, whose output a post-call hook blocked.
 */
export type ToolErrorKind =
  | "blocked"
  | "denied"
  | "invalid"
  | "unavailable"
  | "refused"
  | "withheld";

/** What `formatToolError` gets: `message` is the text the model would read by default. */
export interface ToolErrorInfo {
  kind: ToolErrorKind;
  toolName: string;
  message: string;
  /** The reason the record keeps (the hook's block, the policy's or the human's reason). */
  reason?: string;
}

/**
 * Writes the text the model reads for a call that did not run; must return a string
 * (anything else, or a throw, rejects the run with `PolicyError`). Records and events keep
 * the reason as it was.
 */
export type FormatToolError = (info: ToolErrorInfo) => string;
