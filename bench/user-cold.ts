/**
 * Section 9's contenders by kind, and its cold child. The cold child is a bundle of its own
 * (compile.ts's `compileColdChild`, code split), run as `node user-cold-entry.mjs
 * kind:calls:runs`. Before its window it imports only its contender's module (user-tollgate.ts
 * or ai-sdk-contender.ts): a fresh process holds what an app of that library holds, not the
 * whole bench with every peer (48 MB of heap, whose collections the report counted as most of
 * tollgate's cold window). tollgate's first-use `import()`s are chunks of that bundle, loaded
 * as the packed package loads its own.
 */
import { PerformanceObserver } from "node:perf_hooks";
import type { Contender } from "./harness.js";

/** The contenders of this section. */
export const USER_KINDS = ["tollgate", "ai", "bare"] as const;
/** One of `USER_KINDS`. */
export type UserKind = (typeof USER_KINDS)[number];

/** Row names. */
export const USER_NAMES: Record<UserKind, string> = {
  tollgate: "tollgate (scriptedProvider, new loop per run)",
  ai: "AI SDK 7 generateText (new MockLanguageModelV4 per run)",
  bare: "tollgate, bare Provider object (new loop per run)",
};

/** One contender of this section for runs of `calls` tool calls; loads only its own module. */
export async function userContender(kind: UserKind, calls: number): Promise<Contender> {
  if (!USER_KINDS.includes(kind)) throw new Error(`section 9: unknown contender ${kind}`);
  if (kind === "ai") {
    const { aiSdkContender } = await import("./ai-sdk-contender.js");
    return aiSdkContender({ steps: calls, callsPerStep: 1 }, USER_NAMES.ai);
  }
  const { tollgateUser } = await import("./user-tollgate.js");
  return tollgateUser(calls, kind === "bare", USER_NAMES[kind]);
}

/** One fresh process's reading. */
export interface ColdReading {
  /** Wall time of the window ÷ (runs × units): µs per run (1 call) or per tool step. */
  perUnit: number;
  /** The first run alone, in µs. */
  firstRunUs: number;
  /** GC pause time in the window ÷ its wall time. */
  gcShare: number;
}

/** What one cold child runs: `kind:calls:runs` on its command line. */
export interface ColdSpec {
  kind: UserKind;
  calls: number;
  runs: number;
}

/**
 * Reads a cold child's `kind:calls:runs` (`tollgate:1:300`); anything else throws, so a child
 * never reports a window of a contender, a run length or a count it was not asked for.
 */
export function parseColdSpec(spec: string): ColdSpec {
  const [kind, calls, runs, extra] = spec.split(":");
  const count = (text: string | undefined) => (/^[1-9]\d*$/.test(text ?? "") ? Number(text) : 0);
  const parsed = { kind: kind as UserKind, calls: count(calls), runs: count(runs) };
  if (!USER_KINDS.includes(parsed.kind) || !parsed.calls || !parsed.runs || extra !== undefined) {
    throw new Error(
      `section 9's cold child: give kind:calls:runs (kind one of ${USER_KINDS.join(", ")}; calls and runs whole numbers above 0), got ${JSON.stringify(spec)}`,
    );
  }
  return parsed;
}

/**
 * The cold child's work (`kind:calls:runs`): loads the contender, then times its first `runs`
 * runs as one window, summing the window's GC pauses; prints a `ColdReading` as JSON.
 */
export async function userColdChild({ kind, calls, runs }: ColdSpec): Promise<void> {
  const contender = await userContender(kind, calls);
  let gcMs = 0;
  let started = Number.POSITIVE_INFINITY;
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) if (entry.startTime >= started) gcMs += entry.duration;
  });
  observer.observe({ entryTypes: ["gc"] });
  started = performance.now();
  await contender.run();
  const firstRunUs = (performance.now() - started) * 1000;
  for (let i = 1; i < runs; i++) await contender.run();
  const elapsed = performance.now() - started;
  // GC entries are delivered asynchronously: let them arrive, then keep the window's.
  await new Promise((resolve) => setTimeout(resolve, 20));
  observer.disconnect();
  const reading: ColdReading = {
    perUnit: (elapsed * 1000) / (runs * contender.units),
    firstRunUs,
    gcShare: gcMs / elapsed,
  };
  process.stdout.write(JSON.stringify(reading));
}
