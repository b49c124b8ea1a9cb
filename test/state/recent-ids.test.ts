import { describe, expect, it } from "vitest";
import { recentIds } from "../../src/state/recent-ids.js";

describe("recentIds (the memory of resumed states of a loop without a store)", () => {
  it("refuses an id it remembers, and forgets the oldest past its bound", () => {
    const memory = recentIds(3);
    expect(["a", "b", "a", "c"].map((id) => memory.add(id))).toEqual([true, true, false, true]);
    expect(memory.add("d")).toBe(true); // a is forgotten now
    expect(memory.size).toBe(3);
    expect(memory.add("b")).toBe(false);
    expect(memory.add("a")).toBe(true);
  });
});
