import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

/**
 * Issue 24, section 5 (honest errors): the README's "Writing a provider" says what a provider's
 * author must give.
 */

describe('the README\'s "Writing a provider" says what an author must give', () => {
  const readme = readFileSync(join(import.meta.dirname, "..", "..", "README.md"), "utf8");
  const start = readme.indexOf("## Writing a provider");
  const section = readme.slice(start, readme.indexOf("\n## ", start + 1));

  it("ProviderError's required fields, and generate's second argument", () => {
    expect(section).toContain(
      "`new ProviderError(message, { provider, retryable, status?, body?, cause?",
    );
    expect(section).toMatch(
      /`provider` \(your provider's `name`\) and `retryable` .* are required/s,
    );
    expect(section).toContain("`generate(request, options)`");
    expect(section).toContain("`{ signal?, runId?, step? }`");
    expect(section).toContain("unknown: true");
  });
});
