/**
 * `npm run bench -- --budget`: bench/budget.json says what the loop may cost (per-step time as a
 * ratio to the floor, promises per step, the core's kB, import ms over zod, real-HTTP CPU);
 * the report runs the sections it names and adds a table marking each figure within or over.
 * Not a gate: the exit code never depends on it (this machine is noisy). A figure for the note
 * of every issue that adds to the loop.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "./compile.js";
import { num, type SectionResult, table } from "./report.js";

/** One line of bench/budget.json: a figure a section reports and what it may be. */
export interface BudgetLine {
  /** The key in the section's `figures` ("loop.floorRatio"). */
  figure: string;
  section: string;
  /** What the figure is, for the table. */
  what: string;
  unit: string;
  /** The most the figure may be (lower is better), or `null` while pending. */
  max?: number | null;
  /** The least it may be (higher is better), or `null` while pending. */
  min?: number | null;
  /** How much the figure moves between runs on an unchanged tree, as a fraction (0.1 = 10 %). */
  noise?: number;
  /**
   * When the section reports no such figure: the first number in the `measured` text of the
   * first of its targets whose text matches this regular expression.
   */
  fromTarget?: string;
  /** Why this is the budget. */
  reason: string;
}

/** bench/budget.json's lines. */
export function loadBudget(): BudgetLine[] {
  const file = JSON.parse(readFileSync(join(ROOT, "bench", "budget.json"), "utf8")) as {
    lines: BudgetLine[];
  };
  for (const line of file.lines) {
    if (!line.figure || !line.section || !line.reason || !("max" in line || "min" in line)) {
      throw new Error(
        `bench/budget.json: ${JSON.stringify(line)} needs figure, section, reason and max or min`,
      );
    }
  }
  return file.lines;
}

/** The sections the budget names that this bench has, in the bench's order. */
export function budgetSections<S extends string>(lines: BudgetLine[], sections: readonly S[]): S[] {
  return sections.filter((section) => lines.some((line) => line.section === section));
}

/** A section's outcome for the budget: its result, or why there is none. */
export type SectionOutcome = SectionResult | "failed";

/** The figure a line budgets, or why there is none. */
function figureOf(
  line: BudgetLine,
  outcomes: Map<string, SectionOutcome>,
  sections: readonly string[],
): number | string {
  if (!sections.includes(line.section))
    return `pending: the bench has no \`${line.section}\` section yet`;
  const outcome = outcomes.get(line.section);
  if (outcome === undefined) return "not run (`--only` left its section out)";
  if (outcome === "failed") return "not measured: its section failed";
  const value = outcome.figures?.[line.figure];
  if (value !== undefined) return value;
  if (line.fromTarget) {
    const pattern = new RegExp(line.fromTarget);
    const target = outcome.targets.find((t) => pattern.test(t.target));
    const found = target && /-?\d[\d,]*(?:\.\d+)?/.exec(target.measured)?.[0];
    if (found) return Number(found.replaceAll(",", ""));
  }
  return `pending: section \`${line.section}\` reports no \`${line.figure}\``;
}

/** The verdict on one figure: ✅ within, ❌ over and by how much. */
function verdict(line: BudgetLine, value: number): string {
  const limit = line.max ?? line.min;
  if (limit === null || limit === undefined) return "pending: no starting value yet";
  const over = line.max !== undefined && line.max !== null ? value - limit : limit - value;
  if (over <= 0) return "✅ within";
  const share = Math.abs(over / limit);
  const noise =
    line.noise && share <= line.noise
      ? ` (within the ±${num(line.noise * 100)} % this figure moves run to run)`
      : "";
  const direction = line.max !== undefined && line.max !== null ? "over" : "under";
  return `❌ ${direction} by ${num(over)} ${line.unit} (${num(share * 100)} %)${noise}`;
}

/** The "Budget" table of the report, and how many figures went over. */
export function budgetTable(
  lines: BudgetLine[],
  outcomes: Map<string, SectionOutcome>,
  sections: readonly string[],
): { markdown: string; over: number } {
  let over = 0;
  const rows = lines.map((line) => {
    const value = figureOf(line, outcomes, sections);
    const limit = line.max ?? line.min;
    const bound =
      limit === null || limit === undefined
        ? "pending"
        : `${line.max !== undefined ? "≤" : "≥"} ${num(limit)} ${line.unit}`;
    const judged = typeof value === "number" ? verdict(line, value) : value;
    if (judged.startsWith("❌")) over++;
    return [
      `${line.what} (\`${line.figure}\`)`,
      bound,
      typeof value === "number" ? `${num(value)} ${line.unit}` : "–",
      judged,
      line.reason,
    ];
  });
  return {
    markdown: `## Budget

What each feature may cost, from bench/budget.json (\`npm run bench -- --budget\`); ${over === 0 ? "nothing went over" : `**${over} over**`}.
Not a gate: the exit code does not depend on it.

${table(["figure", "budget", "measured", "", "why this budget"], rows)}
`,
    over,
  };
}
