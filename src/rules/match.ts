import type { ToolAnnotations } from "tollgate";
import type { RuleEffect, RuleHint, RuleValue } from "./document.js";

/** One arg test, compiled: the arg's location and its tests. */
export interface CompiledArg {
  key: string;
  /** The path into the args: one key for a top-level key, the pointer's tokens for a pointer. */
  path: string[];
  equals?: RuleValue;
  in?: RuleValue[];
  glob?: RegExp;
  prefix?: string;
  gt?: number;
  gte?: number;
  lt?: number;
  lte?: number;
  exists?: boolean;
  /** The matcher as written (for the shadowing check). */
  written: Record<string, unknown>;
}

/** A rule, compiled at load. */
export interface CompiledRule {
  id: string;
  effect: RuleEffect;
  index: number;
  tools?: { written: string[]; patterns: (RegExp | string)[] };
  annotations?: Partial<Record<RuleHint, boolean>>;
  args: CompiledArg[];
  maxPerRun?: number;
  reason?: string;
}

const ABSENT = Symbol("absent");

/** The value at an arg's path, or ABSENT. */
function valueAt(args: unknown, path: readonly string[]): unknown {
  let value: unknown = args;
  for (const token of path) {
    if (value === null || typeof value !== "object") return ABSENT;
    if (Array.isArray(value)) {
      if (!/^(0|[1-9]\d*)$/.test(token) || Number(token) >= value.length) return ABSENT;
      value = value[Number(token)];
    } else {
      if (!Object.hasOwn(value, token)) return ABSENT;
      value = (value as Record<string, unknown>)[token];
    }
  }
  return value === undefined ? ABSENT : value;
}

/** Deep equality of JSON values (object keys in any order). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const other = b as unknown[];
    return a.length === other.length && a.every((item, i) => jsonEqual(item, other[i]));
  }
  const aKeys = Object.keys(a);
  const bKeys = Object.keys(b);
  return (
    aKeys.length === bKeys.length &&
    aKeys.every(
      (key) =>
        Object.hasOwn(b, key) &&
        jsonEqual((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]),
    )
  );
}

/**
 * Whether one arg's tests hold. A test that cannot judge the value (the arg is absent, or of
 * a type the test does not read) holds when `unknownHolds` (deny and ask rules: fail closed),
 * and fails otherwise (allow rules). `exists` always judges.
 */
export function argHolds(arg: CompiledArg, args: unknown, unknownHolds: boolean): boolean {
  const value = valueAt(args, arg.path);
  if (arg.exists !== undefined && arg.exists !== (value !== ABSENT)) return false;
  if (value === ABSENT) {
    const tests = Object.keys(arg.written).filter((key) => key !== "exists");
    return tests.length === 0 || unknownHolds;
  }
  if (arg.equals !== undefined && !jsonEqual(value, arg.equals)) return false;
  if (arg.in !== undefined && !arg.in.some((item) => jsonEqual(value, item))) return false;
  if (arg.glob !== undefined || arg.prefix !== undefined) {
    if (typeof value !== "string") {
      if (!unknownHolds) return false;
    } else {
      if (arg.glob !== undefined && !arg.glob.test(value)) return false;
      if (arg.prefix !== undefined && !value.startsWith(arg.prefix)) return false;
    }
  }
  if (
    arg.gt !== undefined ||
    arg.gte !== undefined ||
    arg.lt !== undefined ||
    arg.lte !== undefined
  ) {
    if (typeof value !== "number" || !Number.isFinite(value)) return unknownHolds;
    if (arg.gt !== undefined && !(value > arg.gt)) return false;
    if (arg.gte !== undefined && !(value >= arg.gte)) return false;
    if (arg.lt !== undefined && !(value < arg.lt)) return false;
    if (arg.lte !== undefined && !(value <= arg.lte)) return false;
  }
  return true;
}

/** A tool's MCP hints with the spec's defaults (a tool that says nothing is destructive, open-world). */
export function hintsOf(annotations: ToolAnnotations | undefined): Record<RuleHint, boolean> {
  const readOnlyHint = annotations?.readOnlyHint ?? false;
  return {
    readOnlyHint,
    destructiveHint: readOnlyHint ? false : (annotations?.destructiveHint ?? true),
    idempotentHint: annotations?.idempotentHint ?? false,
    openWorldHint: annotations?.openWorldHint ?? true,
  };
}

/** The call as a rule sees it. */
export interface RuleCall {
  name: string;
  args: unknown;
  hints: Record<RuleHint, boolean>;
  /** How many times this tool executed in this run before. */
  ran: () => number;
}

/** Whether a rule matches a call. */
export function ruleMatches(rule: CompiledRule, call: RuleCall): boolean {
  if (rule.tools) {
    const named = rule.tools.patterns.some((pattern) =>
      typeof pattern === "string" ? pattern === call.name : pattern.test(call.name),
    );
    if (!named) return false;
  }
  if (rule.annotations) {
    for (const [hint, value] of Object.entries(rule.annotations)) {
      if (call.hints[hint as RuleHint] !== value) return false;
    }
  }
  const unknownHolds = rule.effect !== "allow";
  for (const arg of rule.args) if (!argHolds(arg, call.args, unknownHolds)) return false;
  if (rule.maxPerRun !== undefined && call.ran() >= rule.maxPerRun) return false;
  return true;
}
