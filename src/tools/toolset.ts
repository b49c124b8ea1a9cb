import { DuplicateToolError, UnknownToolError } from "../errors.js";
import type { ToolSpec } from "../types/messages.js";
import type { Tool } from "../types/tool.js";
import { notAToolMessage } from "./foreign-tools.js";

/**
 * An immutable set of tools with unique names. Every operation returns a new set.
 * Build one with `toolset([a, b])` or `Toolset.empty()`.
 */
export class Toolset<Deps = unknown> implements Iterable<Tool<Deps>> {
  readonly #byName: ReadonlyMap<string, Tool<Deps>>;
  #specs: ToolSpec[] | undefined;

  private constructor(byName: Map<string, Tool<Deps>>) {
    this.#byName = byName;
  }

  /** A set of the given tools; throws `DuplicateToolError` when two share a name. */
  static from<Deps>(tools: Iterable<Tool<Deps>>): Toolset<Deps> {
    if (
      typeof (tools as { [Symbol.iterator]?: unknown } | null)?.[Symbol.iterator] !== "function"
    ) {
      throw new TypeError(
        "toolset() takes a list of tools: toolset([a, b]); for a { name: tool } record write toolset(Object.values(record))",
      );
    }
    const byName = new Map<string, Tool<Deps>>();
    let index = 0;
    for (const tool of tools) {
      const problem = notAToolMessage(tool, `tools[${index++}]`);
      if (problem) throw new TypeError(problem);
      if (byName.has(tool.name)) throw new DuplicateToolError(tool.name);
      byName.set(tool.name, tool);
    }
    return new Toolset(byName);
  }

  /** The set with no tools. */
  static empty<Deps = unknown>(): Toolset<Deps> {
    return new Toolset(new Map());
  }

  /** How many tools the set holds. */
  get size(): number {
    return this.#byName.size;
  }

  /** Whether the set holds no tools. */
  isEmpty(): boolean {
    return this.#byName.size === 0;
  }

  /** The tool with this name, or `undefined`. */
  find(name: string): Tool<Deps> | undefined {
    return this.#byName.get(name);
  }

  /** The tool with this name; throws `UnknownToolError` when there is none. */
  get(name: string): Tool<Deps> {
    const tool = this.#byName.get(name);
    if (!tool) throw new UnknownToolError(name, this.names());
    return tool;
  }

  /** The tools' names, in the order they were added. */
  names(): string[] {
    return [...this.#byName.keys()];
  }

  /** What the model is shown of each tool; computed once per set. */
  toSpecs(): ToolSpec[] {
    this.#specs ??= [...this.#byName.values()].map((tool) => ({
      name: tool.name,
      description: tool.description,
      inputSchema: tool.inputSchema,
    }));
    return this.#specs.slice();
  }

  /** A set with `tool` added; throws `DuplicateToolError` when its name is taken. */
  with(tool: Tool<Deps>): Toolset<Deps> {
    return Toolset.from([...this, tool]);
  }

  /** A set without the named tools; throws `UnknownToolError` for a name not in the set. */
  without(...names: string[]): Toolset<Deps> {
    const drop = new Set(this.#checkNames(names));
    return new Toolset(new Map([...this.#byName].filter(([name]) => !drop.has(name))));
  }

  /** A set of only the named tools, in the order named; throws `UnknownToolError` for a name not in the set. */
  pick(...names: string[]): Toolset<Deps> {
    return new Toolset(new Map(this.#checkNames(names).map((name) => [name, this.get(name)])));
  }

  /** The tools, in the order they were added. */
  [Symbol.iterator](): Iterator<Tool<Deps>> {
    return this.#byName.values();
  }

  #checkNames(names: string[]): string[] {
    for (const name of names) this.get(name);
    return names;
  }
}

/** An immutable toolset of these tools; throws `DuplicateToolError` when two share a name. */
export function toolset<Deps = unknown>(tools: Iterable<Tool<Deps>>): Toolset<Deps> {
  return Toolset.from(tools);
}
