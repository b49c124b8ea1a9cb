import { normalizeSchema } from "../tools/schema.js";
import { tool } from "../tools/tool.js";
import type { Provider } from "../types/provider.js";
import type { StandardSchema } from "../types/schema.js";
import type { Tool } from "../types/tool.js";
import { checkKeys, shownValue } from "../util/option-keys.js";
import { TOOL_NAME } from "../util/tool-name.js";
import { isPlainObject, kindOf } from "../util/values.js";
import type { OutputValidator } from "./output-validator.js";

/** How the model gives its final answer: by calling a tool, by the provider's JSON mode, or as JSON text. */
export type OutputMode = "tool" | "native" | "prompted";

/** The schema of the final answer: zod 3/4, a Standard Schema, or `jsonSchema({...})`. */
export type OutputSchema<Output = unknown> = StandardSchema<any, Output>;

/**
 * The `output` option (loop or run): the final answer's schema, or the schema with how the
 * model gives it (`mode`; default "native" when the provider supports it, else "tool"), the
 * name and description of the final-answer tool or JSON schema (default "final_answer"), and
 * a `validate` check that runs on every answer the schema accepted (see `OutputValidator`).
 */
export type OutputOption<Output = unknown, Deps = any> =
  | OutputSchema<Output>
  | {
      schema: OutputSchema<Output>;
      mode?: OutputMode | undefined;
      name?: string | undefined;
      description?: string | undefined;
      /**
       * Checks the parsed answer with the run's `deps` and transcript: return `undefined` to
       * accept it, a string (or `{ retry }`) to send it back to the model; a throw ends the run.
       */
      validate?: OutputValidator<NoInfer<Output>, NoInfer<Deps>> | undefined;
    };

/** The value type an `output` option gives `result.output`. */
export type InferOutputOf<O> =
  O extends OutputSchema<infer T> ? T : O extends { schema: OutputSchema<infer T> } ? T : unknown;

/** An `output` option, checked once: the schema normalised, the mode chosen. */
export interface ResolvedOutput {
  readonly mode: OutputMode;
  readonly name: string;
  readonly description: string;
  readonly jsonSchema: Record<string, unknown>;
  validate(value: unknown): ReturnType<StandardSchema["~standard"]["validate"]>;
  /** The final-answer tool, in "tool" mode. */
  readonly tool: Tool<any> | undefined;
  /** `output.validate`, asked about every answer the schema accepted. */
  readonly validator: OutputValidator | undefined;
}

export const DEFAULT_OUTPUT_NAME = "final_answer";
/** The default description, by mode: the final-answer tool's, or the native response format's. */
const DEFAULT_DESCRIPTION: Record<OutputMode, string> = {
  tool: "Give your final answer: call this once you are done, with the answer as its args.",
  native: "Your final answer.",
  prompted: "Your final answer.",
};
const MODES: readonly OutputMode[] = ["tool", "native", "prompted"];

/**
 * Checks an `output` option (`where`: "AgentLoop", "run()") against the provider and the
 * loop's tool names: a bad schema or mode, "native" on a provider without it, or a
 * final-answer tool named like one of the loop's tools is a `TypeError`.
 */
export function resolveOutput(
  option: unknown,
  provider: Provider,
  toolNames: readonly string[],
  maxRetries: number,
  where: string,
): ResolvedOutput | undefined {
  if (option === undefined) return undefined;
  const given = isPlainObject(option) && "schema" in option ? option : { schema: option };
  checkKeys(`${where} output`, given, ["schema", "mode", "name", "description", "validate"], {
    type: "schema",
    strategy: "mode",
  });
  const {
    schema,
    mode: asked,
    name = DEFAULT_OUTPUT_NAME,
    description: described,
    validate: validator,
  } = given as Record<string, any>;
  if (asked !== undefined && !MODES.includes(asked)) {
    throw new TypeError(
      `${where}: output.mode must be "tool", "native" or "prompted", got ${shownValue(asked)}`,
    );
  }
  if (typeof name !== "string" || !TOOL_NAME.test(name)) {
    throw new TypeError(
      `${where}: output.name must be 1–64 letters, digits, "_" or "-", got ${shownValue(name)}`,
    );
  }
  if (described !== undefined && typeof described !== "string") {
    throw new TypeError(`${where}: output.description must be a string, got ${kindOf(described)}`);
  }
  if (validator !== undefined && typeof validator !== "function") {
    throw new TypeError(
      `${where}: output.validate must be a function (output, ctx) => undefined | string | { retry }, got ${kindOf(validator)}`,
    );
  }
  const native = provider.supportsNativeOutput === true;
  const mode: OutputMode = asked ?? (native ? "native" : "tool");
  const description: string = described ?? DEFAULT_DESCRIPTION[mode];
  if (mode === "native" && !native) {
    throw new TypeError(
      `${where}: output mode "native" needs a provider that supports it; provider "${provider.name}" does not declare supportsNativeOutput. Use mode "tool" (works with every provider that calls tools) or "prompted"`,
    );
  }
  if (toolNames.includes(name)) {
    throw new TypeError(
      `${where}: the final-answer tool's name "${name}" is the name of one of the loop's tools; give output.name another name`,
    );
  }
  let normalized: ReturnType<typeof normalizeSchema>;
  try {
    normalized = normalizeSchema(schema, name);
  } catch (error) {
    // The schema checks speak of tools; this schema is the run's output.
    const message = error instanceof Error ? error.message : String(error);
    throw new TypeError(
      `${where}: output schema: ${message.replace(`tool "${name}": \`input\``, "the output schema")}`,
    );
  }
  const outputTool =
    mode === "tool"
      ? tool({ name, description, input: schema, maxRetries, execute: (args: unknown) => args })
      : undefined;
  return Object.freeze({
    mode,
    name,
    description,
    jsonSchema: normalized.jsonSchema,
    validate: (value: unknown) => normalized.validate(value),
    tool: outputTool,
    validator,
  });
}
