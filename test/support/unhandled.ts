import { afterEach, beforeEach } from "vitest";

/**
 * Collects the process's unhandled rejections while each test of the enclosing `describe` runs,
 * so a test can assert there were none (a failure must reach the caller, never float away).
 */
export function collectUnhandledRejections(): unknown[] {
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  beforeEach(() => {
    unhandled.length = 0;
    process.on("unhandledRejection", onUnhandled);
  });
  afterEach(() => {
    process.off("unhandledRejection", onUnhandled);
  });
  return unhandled;
}
