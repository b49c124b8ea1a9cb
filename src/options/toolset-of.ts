import { notAToolMessage, toolLike } from "../tools/foreign-tools.js";
import { Toolset } from "../tools/toolset.js";
import type { Tool } from "../types/tool.js";
import { isPlainObject, kindOf } from "../util/values.js";

/**
 * The `tools` option as a Toolset: an array, a Toolset, or the AI SDK's `{ name: tool }` record
 * (each key the tool's name). Anything else, or an entry that is not a tool built by `tool()`,
 * is a `TypeError` that says what to write.
 */
export function toolsetOf<Deps>(tools: unknown): Toolset<Deps> {
  if (tools instanceof Toolset) return tools;
  if (tools === undefined) return Toolset.empty();
  if (Array.isArray(tools)) return Toolset.from(tools);
  if (isToolRecord(tools)) return Toolset.from(recordTools<Deps>(tools));
  const kind = toolLike(tools);
  if (kind === "tollgate-tool") {
    throw new TypeError("AgentLoop: `tools` is one tool; give a list: tools: [yourTool]");
  }
  if (kind !== undefined) {
    const problem = notAToolMessage(tools, "`tools`");
    throw new TypeError(`AgentLoop: ${problem}; and \`tools\` takes a list: tools: [yourTool]`);
  }
  throw new TypeError(
    `AgentLoop: \`tools\` must be an array of tools, a { name: tool } record or a Toolset, got ${kindOf(tools)}`,
  );
}

/**
 * Whether `tools` is a `{ name: tool }` record: a plain object whose values are all objects
 * (a single tool, or a definition, has a string `name` and a function `execute`).
 */
function isToolRecord(tools: unknown): tools is Record<string, unknown> {
  return (
    isPlainObject(tools) &&
    Object.values(tools).every((value) => typeof value === "object" && value !== null)
  );
}

/** The tools of a `{ name: tool }` record; a key that is not its tool's name is refused. */
function recordTools<Deps>(record: Record<string, unknown>): Tool<Deps>[] {
  return Object.entries(record).map(([key, value]) => {
    const where = `tools${/^[A-Za-z_$][\w$]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`}`;
    const problem = notAToolMessage(value, where, key);
    if (problem) throw new TypeError(`AgentLoop: ${problem}`);
    const tool = value as Tool<Deps>;
    if (tool.name !== key) {
      throw new TypeError(
        `AgentLoop: ${where} holds the tool named ${JSON.stringify(tool.name)}; in a { name: tool } record each key is its tool's name (the name the model calls): write ${JSON.stringify(tool.name)}: <that tool>, or tools: [<that tool>]`,
      );
    }
    return tool;
  });
}
