import type { Tracer } from "@opentelemetry/api";
import { checkKeys } from "../util/option-keys.js";
import { kindOf } from "../util/values.js";

/** What `otelListener` takes besides the tracer. */
export interface OtelListenerOptions {
  /**
   * Record content: tool args and results (`gen_ai.tool.call.arguments` / `.result`) and the
   * model's output (`gen_ai.output.messages`). Default false: traces carry names, ids,
   * verdicts and token counts, never what users or tools wrote.
   */
  recordContent?: boolean | undefined;
  /** The top-level run's agent name (`invoke_agent {agentName}`); default "tollgate". Sub-runs take their tool's name. */
  agentName?: string | undefined;
}

/** The options, checked once. */
export interface ResolvedOtelOptions {
  recordContent: boolean;
  agentName: string;
}

const KEYS = ["recordContent", "agentName"];
const ALIASES: Readonly<Record<string, string>> = {
  captureContent: "recordContent",
  recordInputsAndOutputs: "recordContent",
  name: "agentName",
};

/** Checks the tracer and the options, failing closed: a typo is an error, never a default. */
export function resolveOtelOptions(tracer: unknown, options: unknown): ResolvedOtelOptions {
  const where = "otelListener()";
  if (typeof (tracer as Partial<Tracer> | null)?.startSpan !== "function") {
    throw new TypeError(
      `${where}: expected an OpenTelemetry Tracer (with startSpan), got ${kindOf(tracer)}; get one with trace.getTracer("my-app")`,
    );
  }
  if (options === undefined) return { recordContent: false, agentName: "tollgate" };
  checkKeys(where, options, KEYS, ALIASES);
  const { recordContent, agentName } = options as OtelListenerOptions;
  if (recordContent !== undefined && typeof recordContent !== "boolean") {
    throw new TypeError(
      `${where}: \`recordContent\` must be true or false, got ${kindOf(recordContent)}`,
    );
  }
  if (agentName !== undefined && (typeof agentName !== "string" || agentName.trim() === "")) {
    throw new TypeError(
      `${where}: \`agentName\` must be a non-empty string, got ${kindOf(agentName)}`,
    );
  }
  return { recordContent: recordContent ?? false, agentName: agentName ?? "tollgate" };
}
