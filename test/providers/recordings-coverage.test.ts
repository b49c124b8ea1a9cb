import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { allRecordings } from "./support/recordings.js";

const here = fileURLToPath(new URL(".", import.meta.url));
const testSources = readdirSync(here)
  .filter((file) => file.endsWith(".test.ts") && file !== "recordings-coverage.test.ts")
  .map((file) => readFileSync(`${here}${file}`, "utf8"))
  .join("\n");

describe("the recordings", () => {
  const recordings = allRecordings().filter((path) => !path.endsWith("SOURCES.md"));

  it("are all here (46 files, as SOURCES.md says)", () => {
    expect(recordings).toHaveLength(46);
  });

  it.each(recordings)("%s is replayed by a provider test", (path) => {
    expect(testSources).toContain(`"${path}"`);
  });
});
