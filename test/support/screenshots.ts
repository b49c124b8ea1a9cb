import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import pixelmatch from "pixelmatch";
import { PNG } from "pngjs";
import { expect } from "vitest";

/**
 * Compares a page's screenshot with the committed baseline: the same size, and at most 0.1% of
 * its pixels different (antialiasing). On a difference, the screenshot and a diff image are
 * written to a temp dir the failure names. Without a baseline, or with
 * TOLLGATE_UPDATE_SCREENSHOTS=1, the screenshot becomes the baseline: the test then fails (there
 * was nothing to compare with) or is skipped (asked to update), saying where it wrote it.
 */
export function expectScreenshot(
  png: Buffer,
  baseline: string,
  file: string,
  skip: (why: string) => void,
): void {
  const actual = PNG.sync.read(png);
  const update = process.env.TOLLGATE_UPDATE_SCREENSHOTS === "1";
  if (update || !existsSync(baseline)) {
    mkdirSync(dirname(baseline), { recursive: true });
    writeFileSync(baseline, PNG.sync.write(actual));
    const wrote = `wrote the screenshot baseline ${baseline}: look at it, then commit it`;
    if (update) {
      console.warn(`${file}: ${wrote} (TOLLGATE_UPDATE_SCREENSHOTS=1)`);
      skip(wrote);
      return;
    }
    throw new Error(`${wrote}; there was none to compare with`);
  }
  const expected = PNG.sync.read(readFileSync(baseline));
  const size = (image: PNG) => `${image.width}x${image.height}`;
  expect(size(actual), "the page's size changed").toBe(size(expected));
  const diff = new PNG({ width: actual.width, height: actual.height });
  const changed = pixelmatch(expected.data, actual.data, diff.data, actual.width, actual.height, {
    threshold: 0.1,
  });
  const allowed = Math.ceil(actual.width * actual.height * 0.001);
  if (changed > allowed) {
    const out = mkdtempSync(join(tmpdir(), "tollgate-screenshot-"));
    writeFileSync(join(out, "actual.png"), PNG.sync.write(actual));
    writeFileSync(join(out, "diff.png"), PNG.sync.write(diff));
    expect.fail(
      `${changed} pixels differ from ${baseline} (${allowed} allowed): see ${out}; if the change is intended, run with TOLLGATE_UPDATE_SCREENSHOTS=1`,
    );
  }
}
