import { describe, expect, it } from "vitest";
import { approvalDigest } from "../../src/state/digest.js";

describe("approvalDigest", () => {
  const base = ["run-1", "call-1", "send", { to: "bob", cc: ["a"] }, "f".repeat(64)] as const;

  it("binds each of its inputs; the args by their data, not their key order", async () => {
    const digest = await approvalDigest(...base);
    expect(digest).toMatch(/^[0-9a-f]{64}$/);
    expect(await approvalDigest(...base)).toBe(digest);
    expect(await approvalDigest("run-1", "call-1", "send", { cc: ["a"], to: "bob" }, base[4])).toBe(
      digest,
    );
    const changed = [
      await approvalDigest("run-2", base[1], base[2], base[3], base[4]),
      await approvalDigest(base[0], "call-2", base[2], base[3], base[4]),
      await approvalDigest(base[0], base[1], "read", base[3], base[4]),
      await approvalDigest(base[0], base[1], base[2], { to: "eve", cc: ["a"] }, base[4]),
      await approvalDigest(base[0], base[1], base[2], base[3], "e".repeat(64)),
    ];
    for (const other of changed) expect(other).not.toBe(digest);
    expect(new Set(changed).size).toBe(changed.length);
  });

  it("is not fooled by moving text from one input to the next", async () => {
    expect(await approvalDigest("ab", "c", "t", {}, "d")).not.toBe(
      await approvalDigest("a", "bc", "t", {}, "d"),
    );
  });
});
