import type { RunResult } from "tollgate";
import { type CallDecision, decisionsOf, formatDecisions } from "tollgate/testing";
import type { MatcherState } from "vitest";

/** What a tollgate matcher answers vitest. */
interface MatcherResult {
  pass: boolean;
  message: () => string;
  actual?: unknown;
  expected?: unknown;
}

/**
 * The run's decisions, or a `TypeError` from the matcher (with `.not` too: a non-result never
 * passes). A tool name the run never offered nor was asked for is a `TypeError` too, so a typo
 * cannot make `.not.toHaveCalledTool("delete_files")` pass.
 */
function read(
  matcher: string,
  received: unknown,
  tools: readonly string[] = [],
): { result: RunResult; decisions: CallDecision[] } {
  let decisions: CallDecision[];
  try {
    decisions = decisionsOf(received as RunResult);
  } catch (error) {
    const problem = (error as Error).message.replace(/^decisionsOf: /, "");
    throw new TypeError(`${matcher}: ${problem}`);
  }
  const result = received as RunResult;
  const known = new Set(result.steps.flatMap((step) => step.tools));
  for (const d of decisions) known.add(d.tool);
  for (const p of [...(result.pending ?? []), ...(result.external ?? [])]) known.add(p.toolName);
  const unknown = tools.find((tool) => !known.has(tool));
  if (unknown !== undefined) {
    throw new TypeError(
      `${matcher}: the run never offered a tool named "${unknown}" nor was asked for one (it offered: ${[...known].join(", ") || "none"}); check the name`,
    );
  }
  return { result, decisions };
}

function toolName(matcher: string, name: unknown): string {
  if (typeof name !== "string" || name === "") {
    throw new TypeError(
      `${matcher}: give the tool's name as a non-empty string, got ${String(name)}`,
    );
  }
  return name;
}

/** The failure message: what was expected (of the run, or of `subject`), then the run's decision table. */
function explain(
  state: MatcherState,
  result: RunResult,
  decisions: CallDecision[],
  expected: string,
  found: string,
  subject = "the run",
): () => string {
  return () =>
    `expected ${subject} ${state.isNot ? "not " : ""}to ${expected}, but ${found}\n\n` +
    `The run's decisions (status ${result.status}):\n${formatDecisions(decisions)}`;
}

const json = (value: unknown) => {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
};

/** `where` for messages: "at step 0" or "at steps 0, 2", or "nowhere". */
const where = (rows: readonly { step: number }[]) =>
  rows.length === 0 ? "it did not" : `it did (step ${rows.map((d) => d.step).join(", ")})`;

/**
 * tollgate's vitest matchers over a `RunResult`, for `expect.extend(tollgateMatchers)`
 * (`import "tollgate/vitest"` registers them for you). Each fails with the run's decision table.
 */
export const tollgateMatchers = {
  /**
   * The run ran tool `name` (the loop executed it), with args deep-equal to `args` when given
   * (asymmetric matchers such as `expect.objectContaining` work). For "the model asked for
   * it", whatever the gate said, use `toHaveRequestedTool`.
   */
  toHaveRunTool(
    this: MatcherState,
    received: unknown,
    name: string,
    ...rest: [args?: unknown]
  ): MatcherResult {
    return ranTool(this, "toHaveRunTool", received, name, rest);
  },

  /**
   * The same check as `toHaveRunTool` (the tool ran), under its first name.
   *
   * @deprecated "called" reads as "the model asked for it"; write `toHaveRunTool` for "it
   * ran", or `toHaveRequestedTool` for "the model asked for it".
   */
  toHaveCalledTool(
    this: MatcherState,
    received: unknown,
    name: string,
    ...rest: [args?: unknown]
  ): MatcherResult {
    return ranTool(this, "toHaveCalledTool", received, name, rest);
  },

  /**
   * The model asked for tool `name` (whatever the gate decided, ran or not), with args
   * deep-equal to `args` when given: the args as the model sent them, before hooks or edits.
   */
  toHaveRequestedTool(
    this: MatcherState,
    received: unknown,
    name: string,
    ...rest: [args?: unknown]
  ): MatcherResult {
    const matcher = "toHaveRequestedTool";
    const tool = toolName(matcher, name);
    const { result, decisions } = read(matcher, received, [tool]);
    const withArgs = rest.length > 0;
    const args = rest[0];
    const asked = modelCalls(result).filter((c) => c.tool === tool);
    const hits = withArgs ? asked.filter((c) => this.equals(c.args, args)) : asked;
    const expected = withArgs
      ? `have asked for ${tool} with args ${json(args)}`
      : `have asked for ${tool}`;
    let found = where(hits);
    if (!this.isNot && hits.length === 0 && asked.length > 0) {
      found = `it asked for ${tool} only with ${asked.map((c) => json(c.args)).join(", ")}`;
    }
    return {
      pass: hits.length > 0,
      message: explain(this, result, decisions, expected, found, "the model"),
      ...(withArgs ? { actual: asked.map((c) => c.args), expected: args } : {}),
    };
  },

  /** A call to tool `name` was denied (by the policy, or refused by a human on resume). */
  toHaveDenied(this: MatcherState, received: unknown, name: string): MatcherResult {
    return verdictIs(this, "toHaveDenied", received, name, "deny", "denied");
  },

  /**
   * The run paused on a call to tool `name`: waiting for approval (`pending`) or for a
   * client-side tool's result (`external`), a sub-agent's calls included.
   */
  toHavePausedFor(this: MatcherState, received: unknown, name: string): MatcherResult {
    const matcher = "toHavePausedFor";
    const tool = toolName(matcher, name);
    const { result, decisions } = read(matcher, received, [tool]);
    const waiting = [
      ...(result.pending ?? []).map((p) => `${p.toolName} (approval)`),
      ...(result.external ?? []).map((p) => `${p.toolName} (result)`),
    ];
    const pass = [...(result.pending ?? []), ...(result.external ?? [])].some(
      (p) => p.toolName === tool,
    );
    const found =
      waiting.length === 0
        ? `it is ${result.status}, waiting for nothing`
        : `it waits for ${waiting.join(", ")}`;
    return {
      pass,
      message: explain(this, result, decisions, `have paused for ${tool}`, found),
    };
  },

  /**
   * A hook blocked a call to tool `name`; with `reason`, the block's message matches it (a
   * RegExp, or a string it contains).
   */
  toHaveBlocked(
    this: MatcherState,
    received: unknown,
    name: string,
    reason?: RegExp | string,
  ): MatcherResult {
    const matcher = "toHaveBlocked";
    if (reason !== undefined && typeof reason !== "string" && !(reason instanceof RegExp)) {
      throw new TypeError(
        `${matcher}: the reason must be a RegExp or a string, got ${json(reason)}`,
      );
    }
    if (reason === undefined) return verdictIs(this, matcher, received, name, "block", "blocked");
    const tool = toolName(matcher, name);
    const { result, decisions } = read(matcher, received, [tool]);
    const blocked = decisions.filter((d) => d.verdict === "block" && d.tool === tool);
    const matches = (text: string) =>
      typeof reason === "string" ? text.includes(reason) : new RegExp(reason).test(text);
    const hits = blocked.filter((d) => matches(d.reason ?? ""));
    const shown = typeof reason === "string" ? json(reason) : String(reason);
    let found = where(hits);
    if (!this.isNot && hits.length === 0 && blocked.length > 0) {
      found = `its blocks of ${tool} said ${blocked.map((d) => json(d.reason ?? "")).join(", ")}`;
    }
    return {
      pass: hits.length > 0,
      message: explain(this, result, decisions, `have blocked ${tool} with ${shown}`, found),
    };
  },

  /** Exactly these tools ran (executed by the loop), in this order. */
  toHaveRunTools(this: MatcherState, received: unknown, names: readonly string[]): MatcherResult {
    const matcher = "toHaveRunTools";
    if (!Array.isArray(names) || names.some((n) => typeof n !== "string")) {
      throw new TypeError(
        `${matcher}: give the tools' names as an array of strings, got ${json(names)}`,
      );
    }
    const { result, decisions } = read(matcher, received, names);
    const ran = decisions.filter((d) => d.ran).map((d) => d.tool);
    return {
      pass: this.equals(ran, names),
      message: explain(this, result, decisions, `have run ${json(names)}`, `it ran ${json(ran)}`),
      actual: ran,
      expected: names,
    };
  },
};

/** `toHaveRunTool` and its old name: the loop executed tool `name` (with `args`, when given). */
function ranTool(
  state: MatcherState,
  matcher: string,
  received: unknown,
  name: unknown,
  rest: [args?: unknown],
): MatcherResult {
  const tool = toolName(matcher, name);
  const { result, decisions } = read(matcher, received, [tool]);
  const withArgs = rest.length > 0;
  const args = rest[0];
  const ran = decisions.filter((d) => d.ran && d.tool === tool);
  const hits = withArgs ? ran.filter((d) => state.equals(d.args, args)) : ran;
  const expected = withArgs ? `have run ${tool} with args ${json(args)}` : `have run ${tool}`;
  const notRun = decisions.filter((d) => d.tool === tool && !d.ran);
  let found = where(hits);
  if (!state.isNot && hits.length === 0 && ran.length > 0) {
    found = `it ran ${tool} only with ${ran.map((d) => json(d.args)).join(", ")}`;
  } else if (!state.isNot && hits.length === 0 && notRun.length > 0) {
    found = `the model asked for ${tool} and it did not run (${notRun.map((d) => d.verdict).join(", ")})`;
  }
  return {
    pass: hits.length > 0,
    message: explain(state, result, decisions, expected, found),
    ...(withArgs ? { actual: ran.map((d) => d.args), expected: args } : {}),
  };
}

/** The tool calls as the model sent them, in order: each tool's name and its args JSON (or text). */
function modelCalls(result: RunResult): { step: number; tool: string; args: unknown }[] {
  return result.steps.flatMap((step) =>
    step.calls.map((call) => ({
      step: step.index,
      tool: call.toolName,
      args: modelArgs(call.repairedFrom ?? call.rawArgs),
    })),
  );
}

/** The args text as JSON, or the text itself when it is not JSON (what a model may send). */
function modelArgs(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function verdictIs(
  state: MatcherState,
  matcher: string,
  received: unknown,
  name: unknown,
  verdict: CallDecision["verdict"],
  verb: string,
): MatcherResult {
  const tool = toolName(matcher, name);
  const { result, decisions } = read(matcher, received, [tool]);
  const hits = decisions.filter((d) => d.verdict === verdict && d.tool === tool);
  const calls = decisions.filter((d) => d.tool === tool);
  let found = where(hits);
  if (!state.isNot && hits.length === 0) {
    found =
      calls.length === 0
        ? `the model never called ${tool}`
        : `its calls to ${tool} were ${calls.map((d) => d.verdict).join(", ")}`;
  }
  return {
    pass: hits.length > 0,
    message: explain(state, result, decisions, `have ${verb} ${tool}`, found),
  };
}

/** The matchers' signatures, as `expect(result)` and `expect.not` see them. */
export interface TollgateMatchers<R = unknown> {
  /** The run ran tool `name`, with args deep-equal to `args` when given (asymmetric matchers work). */
  toHaveRunTool(name: string, args?: unknown): R;
  /**
   * The same check as `toHaveRunTool` (the tool ran).
   *
   * @deprecated write `toHaveRunTool` for "it ran", or `toHaveRequestedTool` for "the model asked for it".
   */
  toHaveCalledTool(name: string, args?: unknown): R;
  /** The model asked for tool `name`, whatever the gate decided; with `args`, the args it sent. */
  toHaveRequestedTool(name: string, args?: unknown): R;
  /** A call to tool `name` was denied (by the policy, or refused on resume). */
  toHaveDenied(name: string): R;
  /** The run paused on a call to tool `name`, for approval or for a client-side result. */
  toHavePausedFor(name: string): R;
  /** A hook blocked a call to tool `name`; its message matches `reason` (RegExp, or a string it contains). */
  toHaveBlocked(name: string, reason?: RegExp | string): R;
  /** Exactly these tools ran, in this order. */
  toHaveRunTools(names: readonly string[]): R;
}
