import * as fc from "fast-check";
import type { ScriptedToolCall, TurnReply } from "tollgate/testing";
import { arbitraryOfSchema } from "./schema-arbitrary.js";

/** What `arbitraryTurns` may put in a script beyond valid calls to your tools. */
export interface ArbitraryTurnsOptions {
  /** Most steps of tool calls before the final text answer (default 4; at least 0). */
  maxSteps?: number | undefined;
  /** Most calls in one step (default 3; at least 1). */
  maxCalls?: number | undefined;
  /** Sometimes call a tool that is not in the toolset (default true). */
  unknownTools?: boolean | undefined;
  /** Sometimes send args that are JSON but not what the schema wants (default true). */
  invalidArgs?: boolean | undefined;
  /** Sometimes send args that are not JSON at all (default true). */
  badJson?: boolean | undefined;
}

/** A tool as `arbitraryTurns` reads it: its name and its input's JSON Schema (every `tool()` has both). */
interface ToolLike {
  readonly name: string;
  readonly inputSchema: Record<string, unknown>;
}

const optionKeys = new Set(["maxSteps", "maxCalls", "unknownTools", "invalidArgs", "badJson"]);

/**
 * An arbitrary of model scripts for `scriptedProvider`, over your own tools: up to `maxSteps`
 * steps, each with 1..`maxCalls` tool calls (args generated from each tool's JSON Schema, and,
 * unless turned off, calls to unknown tools, args the schema refuses, and args that are not
 * JSON), then a text answer, so the script never runs out before the run ends. A schema keyword
 * it cannot generate is a `SchemaArbitraryError` naming the tool and where in its schema.
 *
 * @example
 * await fc.assert(
 *   fc.asyncProperty(arbitraryTurns(tools), async (turns) => {
 *     const result = await agent(scriptedProvider(turns)).run("go");
 *     // ...a property of decisionsOf(result)
 *   }),
 * );
 */
export function arbitraryTurns(
  tools: Iterable<ToolLike>,
  options: ArbitraryTurnsOptions = {},
): fc.Arbitrary<TurnReply[]> {
  const list = readTools(tools);
  const settings = readOptions(options);
  const known = new Set(list.map((t) => t.name));
  const calls: fc.Arbitrary<ScriptedToolCall>[] = list.map((t) =>
    arbitraryOfSchema(t.inputSchema, `tool ${t.name}: inputSchema`).map((args) => ({
      name: t.name,
      args,
    })),
  );
  const names = list.length > 0 ? fc.constantFrom(...list.map((t) => t.name)) : undefined;
  const odd: fc.Arbitrary<ScriptedToolCall>[] = [];
  if (settings.unknownTools || !names) {
    odd.push(
      fc
        .stringMatching(/^[a-z][a-z_]{0,15}$/)
        .filter((name) => !known.has(name))
        .chain((name) => fc.record({ name: fc.constant(name), args: fc.object({ maxDepth: 1 }) })),
    );
  }
  if (names && settings.invalidArgs) {
    const wrong = fc.oneof(
      fc.object({ maxDepth: 2 }),
      fc.jsonValue({ maxDepth: 1 }).map((v) => JSON.stringify(v) ?? "null"),
    );
    odd.push(fc.record({ name: names, args: wrong }));
  }
  if (names && settings.badJson) {
    const notJson = fc.oneof(
      fc.constantFrom("", "{", '{"a":', "{'a': 1}", "undefined", "[1,]"),
      fc.string().filter((text) => !parses(text)),
    );
    odd.push(fc.record({ name: names, args: notJson }));
  }
  const call =
    calls.length === 0
      ? fc.oneof(...odd)
      : odd.length === 0
        ? fc.oneof(...calls)
        : fc.oneof(
            { weight: 4, arbitrary: fc.oneof(...calls) },
            { weight: 1, arbitrary: fc.oneof(...odd) },
          );
  const step = fc
    .array(call, { minLength: 1, maxLength: settings.maxCalls })
    .map((toolCalls) => ({ toolCalls }));
  const answer = fc.string({ maxLength: 20 }).map((text) => ({ text }));
  return fc
    .tuple(fc.array(step, { maxLength: settings.maxSteps }), answer)
    .map(([steps, text]): TurnReply[] => [...steps, text]);
}

function readTools(tools: Iterable<ToolLike>): ToolLike[] {
  if (
    typeof (tools as { [Symbol.iterator]?: unknown } | null)?.[Symbol.iterator] !== "function" ||
    typeof tools === "string"
  ) {
    throw new TypeError(
      `arbitraryTurns: give your tools (an array of tool() or a Toolset), got ${tools === null ? "null" : typeof tools}`,
    );
  }
  const list = [...tools];
  if (list.length === 0) {
    throw new TypeError(
      "arbitraryTurns: the toolset is empty; give the tools your agent has (a model can only call unknown tools then)",
    );
  }
  for (const [at, t] of list.entries()) {
    const { name, inputSchema } = (t ?? {}) as Partial<ToolLike>;
    if (typeof name !== "string" || typeof inputSchema !== "object" || inputSchema === null) {
      throw new TypeError(
        `arbitraryTurns: tools[${at}] is not a tool (no name or inputSchema); build it with tool()`,
      );
    }
  }
  return list;
}

function readOptions(options: ArbitraryTurnsOptions) {
  if (typeof options !== "object" || options === null) {
    throw new TypeError("arbitraryTurns: options must be an object");
  }
  for (const key of Object.keys(options)) {
    if (!optionKeys.has(key)) throw new TypeError(`arbitraryTurns: unknown option "${key}"`);
  }
  const count = (key: "maxSteps" | "maxCalls", fallback: number, least: number) => {
    const value = options[key] ?? fallback;
    if (!Number.isInteger(value) || value < least) {
      throw new TypeError(
        `arbitraryTurns: ${key} must be an integer of at least ${least}, got ${String(value)}`,
      );
    }
    return value;
  };
  const flag = (key: "unknownTools" | "invalidArgs" | "badJson") => {
    const value = options[key] ?? true;
    if (typeof value !== "boolean") throw new TypeError(`arbitraryTurns: ${key} must be a boolean`);
    return value;
  };
  return {
    maxSteps: count("maxSteps", 4, 0),
    maxCalls: count("maxCalls", 3, 1),
    unknownTools: flag("unknownTools"),
    invalidArgs: flag("invalidArgs"),
    badJson: flag("badJson"),
  };
}

function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
