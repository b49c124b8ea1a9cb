import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { memoryRunStore } from "tollgate";
import { fileRunStore } from "tollgate/file-store";
import { describe, expect, it } from "vitest";

const folder = () => mkdtempSync(join(tmpdir(), "tollgate-store-options-"));

describe("the memory and file stores check their options as the other stores do", () => {
  it.each([
    ["memoryRunStore", (options: unknown) => memoryRunStore(options as never)],
    ["fileRunStore", (options: unknown) => fileRunStore(folder(), options as never)],
  ])(
    "%s: an unknown option is a TypeError with a did-you-mean, not a silent default",
    (name, make) => {
      expect(() => make({ leaseMS: 5_000 })).toThrow(
        new RegExp(`${name}: unknown option \`leaseMS\`; did you mean \`leaseMs\``),
      );
      expect(() => make({ ttlMs: 5_000 })).toThrow(/did you mean `leaseMs`/);
      expect(() => make("5s")).toThrow(`${name}: expected an options object, got a string`);
      expect(() => make({ leaseMs: 5_000 })).not.toThrow();
      expect(() => make(undefined)).not.toThrow();
    },
  );
});
