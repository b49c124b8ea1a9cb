import { DuplicateToolError, Toolset, tool, toolset, UnknownToolError } from "tollgate";
import { describe, expect, it } from "vitest";
import { z } from "zod";

const make = (name: string) =>
  tool({ name, description: `the ${name} tool`, input: z.object({}), execute: () => name });
const [a, b, c] = [make("a"), make("b"), make("c")];

describe("Toolset", () => {
  it("holds tools with unique names in the order given", () => {
    const set = toolset([a, b, c]);
    expect(set.names()).toEqual(["a", "b", "c"]);
    expect(set.size).toBe(3);
    expect(set.isEmpty()).toBe(false);
    expect([...set]).toEqual([a, b, c]);
  });

  it("throws DuplicateToolError for two tools of one name", () => {
    expect(() => toolset([a, make("a")])).toThrow(DuplicateToolError);
    expect(() => toolset([a, make("a")])).toThrow(/"a"/);
  });

  it("empty() is empty", () => {
    const empty = Toolset.empty();
    expect(empty.size).toBe(0);
    expect(empty.isEmpty()).toBe(true);
    expect(empty.names()).toEqual([]);
  });

  it("find() returns undefined for an unknown name; get() throws UnknownToolError naming what exists", () => {
    const set = toolset([a, b]);
    expect(set.find("a")).toBe(a);
    expect(set.find("z")).toBeUndefined();
    expect(set.get("b")).toBe(b);
    expect(() => set.get("z")).toThrow(UnknownToolError);
    expect(() => set.get("z")).toThrow(/"z".*a, b/);
  });

  it("toSpecs() gives name, description and JSON Schema, as a fresh array each time", () => {
    const set = toolset([a]);
    const specs = set.toSpecs();
    expect(specs).toEqual([{ name: "a", description: "the a tool", inputSchema: a.inputSchema }]);
    specs.pop();
    expect(set.toSpecs()).toHaveLength(1);
  });

  it("with() adds, without() and pick() remove; each returns a new set and leaves the old one alone", () => {
    const set = toolset([a, b]);
    const more = set.with(c);
    expect(more.names()).toEqual(["a", "b", "c"]);
    expect(set.names()).toEqual(["a", "b"]);
    expect(more.without("a", "c").names()).toEqual(["b"]);
    expect(more.pick("c", "a").names()).toEqual(["c", "a"]);
    expect(more.names()).toEqual(["a", "b", "c"]);
  });

  it("with() throws DuplicateToolError; without() and pick() throw UnknownToolError for a missing name", () => {
    const set = toolset([a, b]);
    expect(() => set.with(make("b"))).toThrow(DuplicateToolError);
    expect(() => set.without("a", "zz")).toThrow(UnknownToolError);
    expect(() => set.pick("zz")).toThrow(UnknownToolError);
  });

  it("is opaque: its map cannot be reached from outside", () => {
    const set = toolset([a]);
    expect(Object.keys(set)).toEqual([]);
  });
});

describe("toolset() given a record", () => {
  it("says to pass a list (Object.values for a record)", () => {
    expect(() => toolset({ notes: 1 } as never)).toThrow(
      "toolset() takes a list of tools: toolset([a, b]); for a { name: tool } record write toolset(Object.values(record))",
    );
  });
});
