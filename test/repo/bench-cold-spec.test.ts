import { describe, expect, it } from "vitest";
import { parseColdSpec } from "../../bench/user-cold.js";

// Section 9's cold child reads what to run from its command line; a spec it cannot read must
// stop it, never give a reading of something else (a NaN count ran no window at all before).
describe("bench: the cold child's kind:calls:runs", () => {
  it("reads each contender, its calls and its runs", () => {
    expect(parseColdSpec("tollgate:1:300")).toEqual({ kind: "tollgate", calls: 1, runs: 300 });
    expect(parseColdSpec("ai:20:50")).toEqual({ kind: "ai", calls: 20, runs: 50 });
    expect(parseColdSpec("bare:5:1")).toEqual({ kind: "bare", calls: 5, runs: 1 });
  });

  it.each([
    "",
    "tollgate",
    "tollgate:1",
    "tollgate:x:300",
    "tollgate:0:300",
    "tollgate:1:-3",
    "tollgate:1.5:300",
    "tollgate:1:300:9",
    "agents:1:300",
  ])("refuses %j, naming what to give", (spec) => {
    expect(() => parseColdSpec(spec)).toThrow(
      `give kind:calls:runs (kind one of tollgate, ai, bare; calls and runs whole numbers above 0), got ${JSON.stringify(spec)}`,
    );
  });
});
