import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

/**
 * Issue 24, section 5 (honest errors): the guide "Writing a provider" says what a provider's
 * author must give.
 */

describe('the guide "Writing a provider" says what an author must give', () => {
  const section = readFileSync(
    join(import.meta.dirname, "..", "..", "docs", "writing-a-provider.md"),
    "utf8",
  );

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
