import { TollgateError } from "../errors.js";
import type { StandardSchema } from "../types/schema.js";
import type { NeedsApproval, Tool, ToolContext } from "../types/tool.js";
import type { ToolAnnotations } from "../types/tool-annotations.js";
import { checkKeys, shownValue } from "../util/option-keys.js";
import { TOOL_NAME } from "../util/tool-name.js";
import { rejectBuiltTool } from "./foreign-tools.js";
import type { InferArgs, InferOutput } from "./schema.js";
import { normalizeSchema } from "./schema.js";
import { noteToolErrors } from "./tool-errors.js";

/** What `tool()` takes. `execute`'s args are typed from `input`'s output, `needsApproval`'s from its input. */
export interface ToolDefinition<Deps, Schema extends StandardSchema> {
  /** Unique in a toolset; 1–64 of `a-z A-Z 0-9 _ -`. */
  name: string;
  description?: string | undefined;
  input: Schema;
  /** Failures (bad args, `RetryError`) fed back to the model before the run rejects. Default 1. */
  maxRetries?: number | undefined;
  /** Gets the args in the model's form: the schema's input side with its defaults filled in, before transforms. */
  needsApproval?: NeedsApproval<Deps, InferArgs<Schema>> | undefined;
  timeoutMs?: number | undefined;
  sequential?: boolean | undefined;
  /** Safe to run twice: a call a crash interrupted is run again on recovery (default false). */
  idempotent?: boolean | undefined;
  /**
   * True (or no `execute`): a client-side tool, run elsewhere (a browser, an app, a person);
   * its results come back through `resume()`. `external: true` with an `execute` is a `TypeError`.
   */
  external?: boolean | undefined;
  /** A client-side tool's output schema (any schema `input` accepts): results given on resume must fit it. */
  output?: StandardSchema | undefined;
  /** Hints about the tool (MCP's names), for hooks and the policy; checked and frozen. */
  annotations?: ToolAnnotations | undefined;
  /** Runs the call; leave it out for a client-side tool. */
  execute?(args: InferOutput<Schema>, ctx: ToolContext<Deps>): unknown;
}

/** Every option of `tool()`; a `Record` over the keys so a new option cannot be left out. */
const TOOL_OPTIONS: Record<keyof ToolDefinition<unknown, StandardSchema>, true> = {
  name: true,
  description: true,
  input: true,
  maxRetries: true,
  needsApproval: true,
  timeoutMs: true,
  sequential: true,
  idempotent: true,
  external: true,
  output: true,
  annotations: true,
  execute: true,
};
const TOOL_KEYS = Object.keys(TOOL_OPTIONS);

/** What other libraries call our options. */
const TOOL_KEY_ALIASES: Readonly<Record<string, string>> = {
  inputSchema: "input",
  parameters: "input",
  schema: "input",
  inputs: "input",
  args: "input",
  argsSchema: "input",
  params: "input",
  handler: "execute",
  run: "execute",
  fn: "execute",
  func: "execute",
  function: "execute",
  invoke: "execute",
  call: "execute",
  maxRetry: "maxRetries",
  retries: "maxRetries",
  maxAttempts: "maxRetries",
  timeout: "timeoutMs",
  requiresApproval: "needsApproval",
  requireApproval: "needsApproval",
  approval: "needsApproval",
  needsConfirmation: "needsApproval",
  serial: "sequential",
  toolName: "name",
};

/**
 * Defines a tool. Checks the definition eagerly and computes the JSON Schema once.
 *
 * @example
 * const getWeather = tool({
 *   name: "get_weather",
 *   description: "Current weather for a city",
 *   input: z.object({ city: z.string() }),
 *   execute: async ({ city }) => ({ city, tempC: 21 }),
 * });
 */
export function tool<Deps = unknown, Schema extends StandardSchema = StandardSchema>(
  definition: ToolDefinition<Deps, Schema>,
): Tool<Deps, InferOutput<Schema>, InferArgs<Schema>> {
  rejectBuiltTool(definition);
  const where = typeof definition?.name === "string" ? `tool "${definition.name}"` : "tool()";
  checkKeys(where, definition, TOOL_KEYS, TOOL_KEY_ALIASES);
  const { name, description = "", input, maxRetries = 1, needsApproval = false } = definition;
  if (typeof name !== "string" || !TOOL_NAME.test(name)) {
    throw new TypeError(
      `tool(): name ${JSON.stringify(name)} is invalid; use 1–64 letters, digits, "_" or "-"`,
    );
  }
  if (typeof description !== "string") {
    throw new TypeError(`tool "${name}": description must be a string`);
  }
  const external = externalOf(definition, name);
  checkMaxRetries(name, maxRetries);
  const { timeoutMs } = definition;
  if (timeoutMs !== undefined && !(Number.isFinite(timeoutMs) && timeoutMs > 0)) {
    throw new TypeError(
      `tool "${name}": timeoutMs must be a positive number of milliseconds, got ${shownValue(timeoutMs)}`,
    );
  }
  if (typeof needsApproval !== "boolean" && typeof needsApproval !== "function") {
    throw new TypeError(
      `tool "${name}": needsApproval must be a boolean or a function, got ${shownValue(needsApproval)}`,
    );
  }
  const { jsonSchema } = normalizeSchema(input, name);
  const built: Tool<Deps, InferOutput<Schema>, InferArgs<Schema>> = {
    name,
    description,
    input: input as unknown as StandardSchema<InferArgs<Schema>, InferOutput<Schema>>,
    inputSchema: jsonSchema,
    maxRetries,
    needsApproval,
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
    sequential: definition.sequential ?? false,
    idempotent: definition.idempotent ?? false,
    external,
    ...(definition.output === undefined ? {} : { output: definition.output }),
    annotations: annotationsOf(definition.annotations, name),
    // What execute throws is marked as the tool's own, so a policy's executeTool that passes
    // it on is not blamed for it.
    execute: external ? runsElsewhere(name) : noteToolErrors(definition.execute!),
  };
  return Object.freeze(built);
}

const NO_ANNOTATIONS: ToolAnnotations = Object.freeze({});
const ANNOTATION_KEYS = [
  "title",
  "readOnlyHint",
  "destructiveHint",
  "idempotentHint",
  "openWorldHint",
] as const;

/** The annotations checked (known keys; booleans, and a string title) and frozen as a copy. */
function annotationsOf(given: unknown, name: string): ToolAnnotations {
  if (given === undefined) return NO_ANNOTATIONS;
  const where = `tool "${name}": annotations`;
  if (typeof given !== "object" || given === null || Array.isArray(given)) {
    throw new TypeError(`${where} must be an object, got ${shownValue(given)}`);
  }
  checkKeys(where, given, ANNOTATION_KEYS);
  const copy: Record<string, unknown> = {};
  for (const key of ANNOTATION_KEYS) {
    const value = (given as Record<string, unknown>)[key];
    if (value === undefined) continue;
    const expected = key === "title" ? "string" : "boolean";
    if (typeof value !== expected) {
      throw new TypeError(`${where}.${key} must be a ${expected}, got ${shownValue(value)}`);
    }
    copy[key] = value;
  }
  return Object.freeze(copy);
}

/** `tool()` with its `Deps` fixed: the args are typed from `input`, `ctx.deps` is `Deps`. */
export type ToolFactory<Deps> = <Schema extends StandardSchema>(
  definition: ToolDefinition<Deps, Schema>,
) => Tool<Deps, InferOutput<Schema>, InferArgs<Schema>>;

/**
 * `tool()` for tools that use deps: call `tool.withDeps<Deps>()` once and define each tool
 * with what it returns. Each tool's args are typed from its `input` and `ctx.deps` is `Deps`,
 * with no annotation. (`tool<Deps>({...})` cannot do this: once one type argument is given,
 * TypeScript infers none of the others, so the args would lose their type.)
 *
 * @example
 * const defineTool = tool.withDeps<{ db: Db }>();
 * const findUser = defineTool({
 *   name: "find_user",
 *   input: z.object({ id: z.string() }),
 *   execute: ({ id }, { deps }) => deps.db.user(id),
 * });
 */
tool.withDeps = function withDeps<Deps>(): ToolFactory<Deps> {
  return tool;
};

/** A copy of `tool` that may fail `maxRetries` times before the run rejects. */
export function withMaxRetries<T extends Tool<any, any>>(tool: T, maxRetries: number): T {
  checkMaxRetries(tool.name, maxRetries);
  return Object.freeze({ ...tool, maxRetries });
}

/**
 * Whether a definition is a client-side tool: `external: true`, or no `execute`. Fails closed on
 * anything that could be either: `external: true` with an `execute`, an `execute` that is not a
 * function, an `output` schema on a tool that runs here (nothing would check it).
 */
function externalOf(
  definition: Pick<ToolDefinition<any, any>, "external" | "execute" | "output">,
  name: string,
): boolean {
  const { external, execute, output } = definition;
  if (external !== undefined && typeof external !== "boolean") {
    throw new TypeError(`tool "${name}": external must be a boolean, got ${shownValue(external)}`);
  }
  if (execute !== undefined && typeof execute !== "function") {
    throw new TypeError(`tool "${name}": execute must be a function`);
  }
  const kind = (execute as { constructor?: { name?: unknown } } | undefined)?.constructor?.name;
  if (kind === "GeneratorFunction" || kind === "AsyncGeneratorFunction") {
    // Its call returns a generator before its body runs; the output would be an iterator.
    throw new TypeError(
      `tool "${name}": execute is a generator function (function*); a tool returns its output once: collect the items and return them (an array, or a string)`,
    );
  }
  if (external === true && execute !== undefined) {
    throw new TypeError(
      `tool "${name}": external: true marks a tool that runs elsewhere, but it has an execute; remove one of them`,
    );
  }
  if (external === false && execute === undefined) {
    throw new TypeError(
      `tool "${name}": execute must be a function (or leave it out with external: true for a client-side tool)`,
    );
  }
  const isExternal = execute === undefined;
  if (output !== undefined) {
    if (!isExternal) {
      throw new TypeError(
        `tool "${name}": \`output\` checks the results of a client-side tool (no execute); this tool runs here`,
      );
    }
    if (typeof (output as StandardSchema)?.["~standard"]?.validate !== "function") {
      throw new TypeError(
        `tool "${name}": \`output\` must be a zod schema, a Standard Schema, or jsonSchema({...}); got ${shownValue(output)}`,
      );
    }
  }
  return isExternal;
}

/** A client-side tool's `execute`: never called by the loop, which pauses for its result instead. */
function runsElsewhere(name: string): () => never {
  return () => {
    throw new TollgateError(
      `tool "${name}" is a client-side tool: it runs elsewhere, and its result comes through resume()`,
    );
  };
}

function checkMaxRetries(name: string, maxRetries: number): void {
  if (!Number.isInteger(maxRetries) || maxRetries < 0) {
    throw new TypeError(
      `tool "${name}": maxRetries must be a whole number >= 0, got ${shownValue(maxRetries)}`,
    );
  }
}
