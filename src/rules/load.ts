import { checkKeys } from "../util/option-keys.js";
import { isPlainObject, kindOf } from "../util/values.js";
import type { RuleEffect, RuleHint, RulesDocument } from "./document.js";
import { compileGlob, isLiteral } from "./glob.js";
import type { CompiledArg, CompiledRule } from "./match.js";
import { argHolds, jsonEqual } from "./match.js";

const DOCUMENT_KEYS = ["$schema", "version", "default", "rules"] as const;
const RULE_KEYS = [
  "id",
  "effect",
  "tool",
  "annotations",
  "args",
  "history",
  "reason",
  "description",
] as const;
const MATCHER_KEYS = [
  "equals",
  "in",
  "glob",
  "prefix",
  "gt",
  "gte",
  "lt",
  "lte",
  "exists",
] as const;
const HINTS: readonly RuleHint[] = [
  "readOnlyHint",
  "destructiveHint",
  "idempotentHint",
  "openWorldHint",
];
const EFFECTS: readonly RuleEffect[] = ["allow", "ask", "deny"];
export const STRICTNESS: Record<RuleEffect, number> = { allow: 0, ask: 1, deny: 2 };

/** The document, checked and compiled. */
export interface CompiledDocument {
  fallback: RuleEffect;
  rules: CompiledRule[];
}

/** Checks a rules document and compiles it; a `TypeError` naming the rule and the path otherwise. */
export function loadRules(document: unknown): CompiledDocument {
  const where = "rulesPolicy";
  checkKeys(`${where}: the document`, document, DOCUMENT_KEYS);
  const doc = document as RulesDocument;
  if (doc.version !== 1) {
    throw new TypeError(`${where}: /version must be 1, got ${shown(doc.version)}`);
  }
  if (doc.$schema !== undefined && typeof doc.$schema !== "string") {
    throw new TypeError(`${where}: /$schema must be a string, got ${kindOf(doc.$schema)}`);
  }
  const fallback = doc.default ?? "deny";
  if (!EFFECTS.includes(fallback)) {
    throw new TypeError(
      `${where}: /default must be "allow", "ask" or "deny", got ${shown(fallback)}`,
    );
  }
  if (!Array.isArray(doc.rules)) {
    throw new TypeError(`${where}: /rules must be an array of rules, got ${kindOf(doc.rules)}`);
  }
  const ids = new Set<string>();
  const rules = doc.rules.map((rule, index) => {
    const compiled = compileRule(rule, index);
    if (ids.has(compiled.id)) {
      throw new TypeError(
        `${where}: rule "${compiled.id}" (/rules/${index}/id): the id is used twice`,
      );
    }
    ids.add(compiled.id);
    return compiled;
  });
  for (const rule of rules) {
    const by = rules.find((other) => other !== rule && covers(other, rule));
    if (by) {
      throw new TypeError(
        `${where}: rule "${rule.id}" (/rules/${rule.index}) can never decide: rule "${by.id}" (${by.effect}) matches every call it matches, and the strictest rule wins`,
      );
    }
  }
  return { fallback, rules };
}

function shown(value: unknown): string {
  return typeof value === "string" || typeof value === "number"
    ? JSON.stringify(value)
    : kindOf(value);
}

function compileRule(rule: unknown, index: number): CompiledRule {
  const at = `/rules/${index}`;
  const id = isPlainObject(rule) && typeof rule.id === "string" ? rule.id : undefined;
  const name = id === undefined ? `rule ${index}` : `rule "${id}"`;
  const fail = (path: string, problem: string): never => {
    throw new TypeError(`rulesPolicy: ${name} (${at}${path}): ${problem}`);
  };
  checkKeys(`rulesPolicy: ${name} (${at})`, rule, RULE_KEYS);
  const r = rule as Record<string, unknown>;
  if (id === undefined || id === "") fail("/id", `must be a non-empty string, got ${shown(r.id)}`);
  if (!EFFECTS.includes(r.effect as RuleEffect)) {
    fail("/effect", `must be "allow", "ask" or "deny", got ${shown(r.effect)}`);
  }
  const compiled: CompiledRule = { id: id!, effect: r.effect as RuleEffect, index, args: [] };
  for (const key of ["reason", "description"] as const) {
    if (r[key] !== undefined && typeof r[key] !== "string")
      fail(`/${key}`, `must be a string, got ${kindOf(r[key])}`);
  }
  if (typeof r.reason === "string") compiled.reason = r.reason;
  if (r.tool !== undefined) {
    const written = typeof r.tool === "string" ? [r.tool] : r.tool;
    if (!Array.isArray(written) || written.length === 0) {
      fail(
        "/tool",
        `must be a tool name, a glob, or a non-empty list of them, got ${kindOf(r.tool)}`,
      );
    }
    const patterns = (written as unknown[]).map((item, i) => {
      const path = typeof r.tool === "string" ? "/tool" : `/tool/${i}`;
      if (typeof item !== "string") return fail(path, `must be a string, got ${kindOf(item)}`);
      if (isLiteral(item) && item !== "" && !/[[\]{}]/.test(item)) return item;
      const glob = compileGlob(item);
      return typeof glob === "string"
        ? fail(path, `bad glob ${JSON.stringify(item)}: ${glob}`)
        : glob;
    });
    compiled.tools = { written: written as string[], patterns };
  }
  if (r.annotations !== undefined) {
    checkKeys(`rulesPolicy: ${name} (${at}/annotations)`, r.annotations, HINTS);
    const hints = r.annotations as Record<string, unknown>;
    for (const [hint, value] of Object.entries(hints)) {
      if (typeof value !== "boolean")
        fail(`/annotations/${hint}`, `must be true or false, got ${kindOf(value)}`);
    }
    if (hints.readOnlyHint === true && hints.destructiveHint === true) {
      fail("/annotations", "no call can match: a read-only tool is never destructive (MCP)");
    }
    compiled.annotations = hints as Partial<Record<RuleHint, boolean>>;
  }
  if (r.args !== undefined) {
    if (!isPlainObject(r.args))
      fail("/args", `must be an object of arg tests, got ${kindOf(r.args)}`);
    for (const [key, matcher] of Object.entries(r.args as Record<string, unknown>)) {
      compiled.args.push(compileArg(key, matcher, `/args/${escapePointer(key)}`, name, at, fail));
    }
  }
  if (r.history !== undefined) {
    checkKeys(`rulesPolicy: ${name} (${at}/history)`, r.history, ["maxPerRun"]);
    const max = (r.history as Record<string, unknown>).maxPerRun;
    if (!Number.isInteger(max) || (max as number) < 1) {
      fail("/history/maxPerRun", `must be a whole number of at least 1, got ${shown(max)}`);
    }
    if (compiled.effect !== "allow") {
      fail(
        "/history",
        "is for allow rules only (a cap that loosens a deny or an ask would open the gate)",
      );
    }
    compiled.maxPerRun = max as number;
  }
  return compiled;
}

const escapePointer = (key: string) => key.replace(/~/g, "~0").replace(/\//g, "~1");

function compileArg(
  key: string,
  matcher: unknown,
  path: string,
  name: string,
  at: string,
  fail: (path: string, problem: string) => never,
): CompiledArg {
  let tokens: string[];
  if (key.startsWith("/")) {
    tokens = key
      .slice(1)
      .split("/")
      .map((token) => {
        if (/~[^01]|~$/.test(token))
          fail(path, `bad JSON pointer ${JSON.stringify(key)} (~ must be ~0 or ~1)`);
        return token.replace(/~1/g, "/").replace(/~0/g, "~");
      });
  } else if (key === "") {
    return fail(path, "an arg key is a top-level key or a JSON pointer starting with /, not empty");
  } else {
    tokens = [key];
  }
  checkKeys(`rulesPolicy: ${name} (${at}${path})`, matcher, MATCHER_KEYS);
  const m = matcher as Record<string, unknown>;
  if (Object.keys(m).length === 0)
    fail(path, "has no test; give one of equals, in, glob, prefix, gt, gte, lt, lte, exists");
  const arg: CompiledArg = { key, path: tokens, written: m };
  if (m.equals !== undefined) arg.equals = m.equals as never;
  if (m.in !== undefined) {
    if (!Array.isArray(m.in)) fail(`${path}/in`, `must be a list of values, got ${kindOf(m.in)}`);
    if ((m.in as unknown[]).length === 0) fail(`${path}/in`, "is empty: no call can match");
    arg.in = m.in as never;
  }
  for (const text of ["glob", "prefix"] as const) {
    if (m[text] !== undefined && typeof m[text] !== "string")
      fail(`${path}/${text}`, `must be a string, got ${kindOf(m[text])}`);
  }
  if (typeof m.glob === "string") {
    const glob = compileGlob(m.glob);
    if (typeof glob === "string")
      fail(`${path}/glob`, `bad glob ${JSON.stringify(m.glob)}: ${glob}`);
    arg.glob = glob as RegExp;
  }
  if (typeof m.prefix === "string") arg.prefix = m.prefix;
  for (const bound of ["gt", "gte", "lt", "lte"] as const) {
    const value = m[bound];
    if (value === undefined) continue;
    if (typeof value !== "number" || !Number.isFinite(value))
      fail(`${path}/${bound}`, `must be a number, got ${shown(value)}`);
    arg[bound] = value as number;
  }
  if (m.exists !== undefined) {
    if (typeof m.exists !== "boolean")
      fail(`${path}/exists`, `must be true or false, got ${kindOf(m.exists)}`);
    arg.exists = m.exists as boolean;
    if (m.exists === false && Object.keys(m).length > 1) {
      fail(path, "no call can match: exists false with a test on the value");
    }
  }
  const low = Math.max(arg.gt ?? -Infinity, arg.gte ?? -Infinity);
  const high = Math.min(arg.lt ?? Infinity, arg.lte ?? Infinity);
  const open = (arg.gt !== undefined && arg.gt >= high) || (arg.lt !== undefined && arg.lt <= low);
  if (low > high || open) fail(path, "no call can match: the numeric bounds exclude every number");
  const sample = (value: unknown) => argHolds({ ...arg, path: ["v"] }, { v: value }, false);
  if (arg.equals !== undefined && !sample(arg.equals)) {
    fail(path, "no call can match: the equals value fails the other tests");
  }
  if (arg.in !== undefined && !arg.in.some(sample)) {
    fail(path, "no call can match: no value of in passes the other tests");
  }
  if (arg.glob !== undefined && arg.prefix !== undefined && isLiteral(m.glob as string)) {
    if (!(m.glob as string).startsWith(arg.prefix))
      fail(path, "no call can match: the glob does not start with the prefix");
  }
  const stringTest = arg.glob !== undefined || arg.prefix !== undefined;
  const numberTest = ["gt", "gte", "lt", "lte"].some((k) => m[k] !== undefined);
  if (stringTest && numberTest)
    fail(path, "no call can match: a value is not both a string and a number");
  return arg;
}

/**
 * Whether `by` takes every call `rule` matches and is stricter, so `rule` can never decide.
 * Detected (decidable, conservative): `by` is stricter, has no history cap, and each of its
 * matchers appears in `rule` too: `tool` absent, or every name of `rule` (literal names only,
 * or the very same patterns) matched by it; every hint of `by` with the same value in `rule`;
 * every arg test of `by` written identically in `rule` (same key, same tests).
 */
function covers(by: CompiledRule, rule: CompiledRule): boolean {
  if (STRICTNESS[by.effect] <= STRICTNESS[rule.effect]) return false;
  if (by.maxPerRun !== undefined) return false;
  if (by.tools) {
    if (!rule.tools) return false;
    const named = rule.tools.written.every(
      (name) =>
        by.tools!.written.includes(name) ||
        (isLiteral(name) &&
          by.tools!.patterns.some((p) => (typeof p === "string" ? p === name : p.test(name)))),
    );
    if (!named) return false;
  }
  for (const [hint, value] of Object.entries(by.annotations ?? {})) {
    if (rule.annotations?.[hint as RuleHint] !== value) return false;
  }
  return by.args.every((arg) =>
    rule.args.some((other) => other.key === arg.key && jsonEqual(other.written, arg.written)),
  );
}
