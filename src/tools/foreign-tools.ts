import { isPlainObject, kindOf } from "../util/values.js";

/**
 * What a value that should be a tollgate tool (or a `tool()` definition) is instead: a tool
 * built by another library, a definition that never went through `tool()`, or a tool `tool()`
 * already built. Recognised by shape, so the error can say what to write.
 */
export type ToolLike =
  | "tollgate-tool"
  | "tool-copy"
  | "definition"
  | "ai-sdk-tool"
  | "openai-agents-tool"
  | undefined;

/**
 * Whether a value has what the loop needs of a tool, as `tool()` builds it: frozen, named,
 * with `execute`, a Standard Schema `input` and the JSON Schema computed from it.
 */
export function isBuiltTool(value: unknown): boolean {
  if (typeof value !== "object" || value === null || !Object.isFrozen(value)) return false;
  const given = value as Record<string, any>;
  return (
    typeof given.name === "string" &&
    typeof given.execute === "function" &&
    typeof given.input?.["~standard"]?.validate === "function" &&
    typeof given.inputSchema === "object" &&
    given.inputSchema !== null
  );
}

/** Which kind of tool-like object a value is, if any (see `ToolLike`). */
export function toolLike(value: unknown): ToolLike {
  if (typeof value !== "object" || value === null) return undefined;
  if (isBuiltTool(value)) return "tollgate-tool";
  const given = value as Record<string, unknown>;
  if (given.type === "function" && typeof given.invoke === "function") return "openai-agents-tool";
  if (("inputSchema" in given || "parameters" in given) && !("input" in given)) {
    return "ai-sdk-tool";
  }
  if ("input" in given && "inputSchema" in given) return "tool-copy";
  if ("input" in given || "execute" in given) return "definition";
  return undefined;
}

/**
 * Why a value given as a tool (in `tools`, a record of tools, or `toolset()`) is not one, and
 * what to write instead; `undefined` when it is a tool built by `tool()`. `where` names the
 * entry ("tools[1]", "tools.weather"); `key` is its record key, which names the tool.
 */
export function notAToolMessage(value: unknown, where: string, key?: string): string | undefined {
  const kind = toolLike(value);
  if (kind === "tollgate-tool") return undefined;
  const given = (typeof value === "object" && value !== null ? value : {}) as Record<
    string,
    unknown
  >;
  const name = JSON.stringify(typeof given.name === "string" ? given.name : (key ?? "my_tool"));
  switch (kind) {
    case "ai-sdk-tool":
      return `${where} is an AI SDK tool (ai's tool()); tollgate's tools have a name and an \`input\`: write tool({ name: ${name}, description, input: <the schema it was given (inputSchema; parameters before AI SDK 5)>, execute }) with tool from "tollgate"`;
    case "openai-agents-tool":
      return `${where} is an OpenAI Agents SDK tool, already built by its tool(); write tool({ name: ${name}, description, input: <the zod schema you gave as parameters>, execute }) with tool from "tollgate"`;
    case "tool-copy":
      return `${where} is a copy of a tool (\`{ ...tool }\` makes a plain object, not a tool); build the variant with tool({ ... }), or withMaxRetries(tool, n) for other retries`;
    case "definition":
      return `${where} is a plain object, not a tool; pass it through tool() first: tool({ name: ${name}, description, input, execute }) checks it and computes its JSON Schema once`;
    default:
      return `${where} must be a tool built with tool() from "tollgate", got ${isPlainObject(value) ? "an object without execute or input" : kindOf(value)}`;
  }
}

/**
 * A tool already built (by another library, or by `tool()`) is not a definition: `tool()`
 * says what to write instead of reporting its keys one by one.
 */
export function rejectBuiltTool(definition: unknown): void {
  if (typeof definition !== "object" || definition === null) return;
  const given = definition as Record<string, unknown>;
  const named = typeof given.name === "string" ? `tool "${given.name}"` : "tool()";
  if (given.type === "function" && typeof given.invoke === "function") {
    throw new TypeError(
      `${named}: this is an OpenAI Agents SDK tool, already built by its tool(); give tollgate's tool() ` +
        "the definition instead: tool({ name, description, input: <the zod schema you gave as parameters>, execute })",
    );
  }
  if ("input" in given && "inputSchema" in given && Object.isFrozen(given)) {
    throw new TypeError(
      `${named}: this is already a tool built by tool(); use it as it is (withMaxRetries(tool, n) changes its retries)`,
    );
  }
  if (("inputSchema" in given || "parameters" in given) && !("name" in given)) {
    throw new TypeError(
      "tool(): this looks like an AI SDK tool (ai's tool()), which has no name; tollgate's tool() takes " +
        'tool({ name: "my_tool", description, input: <the schema it was given (inputSchema; parameters before AI SDK 5)>, execute: (args, ctx) => ... })',
    );
  }
}
