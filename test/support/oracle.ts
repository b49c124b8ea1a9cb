/**
 * A model of the loop written from DESIGN.md (sections 3, 4, 5, 8 and 10), for property tests:
 * random scenarios (scripts of tool calls × the answers of every user callback), a harness that
 * plays one against the real `AgentLoop` and records what user code saw, and an oracle that
 * predicts — from the scenario alone, never from the loop's events — which calls execute, with
 * which args, and how the run ends.
 */
import fc from "fast-check";
import {
  AgentLoop,
  HookError,
  type LoopEvent,
  type LoopPolicy,
  type Message,
  memoryRunStore,
  PolicyError,
  ResumeError,
  RetryError,
  type RunResult,
  type RunStore,
  StoreError,
  TollgateError,
  type Tool,
  ToolExecutionError,
  ToolOutputError,
  ToolRetriesExceededError,
  tool,
  toolset,
  UnknownToolError,
  type Verdict,
} from "tollgate";
import { functionProvider } from "tollgate/testing";
import { expect } from "vitest";
import { z } from "zod";

// ---------------------------------------------------------------------------------------------
// The scenario
// ---------------------------------------------------------------------------------------------

export const TOOL_NAMES = ["a", "b", "c"] as const;
export type ToolName = (typeof TOOL_NAMES)[number];
export type CallName = ToolName | "missing";

/** How the model's args text looks. */
export const ARGS_KINDS = ["valid", "schema", "json", "empty", "proto", "deep"] as const;
export type ArgsKind = (typeof ARGS_KINDS)[number];

/** What the tool's own `execute` does for one call. */
export const BEHAVIOURS = [
  "ok",
  "undefined",
  "throw",
  "throwString",
  "throwNullProto",
  "retry",
  "unfit",
] as const;
export type Behaviour = (typeof BEHAVIOURS)[number];

/** Pre-call hook answers that DESIGN section 4 accepts. */
export const VALID_HOOKS = [
  "none",
  "empty",
  "block",
  "blockMsg",
  "blockEmpty",
  "blockFalse",
  "result",
  "resultNull",
  "resultObj",
  "args",
  "argsEmpty",
  "argsConfirm",
  "confirmTrue",
  "confirmFalse",
  "stop",
  "stopReason",
  "stopFalse",
  "stopBlock",
  "blockResult",
  "undefinedKeys",
  "nullProtoBlock",
] as const;
/** Pre-call hook answers that must reject the run with `HookError` once a call reaches them. */
export const MALFORMED_HOOKS = [
  "badArgs",
  "argsBigInt",
  "argsCircular",
  "argsFunction",
  "argsNull",
  "argsDeep",
  "deny",
  "array",
  "null",
  "confirmNull",
  "confirmString",
  "blockNumber",
  "stopString",
  "stopReasonNumber",
  "zero",
  "string",
  "true",
  "instance",
  "map",
  "blockGetterThrows",
  "thenGetterThrows",
  "toStringThrows",
  "throw",
  "throwString",
  "throwNullProto",
  "throwToStringThrows",
] as const;
export type HookKind = (typeof VALID_HOOKS)[number] | (typeof MALFORMED_HOOKS)[number];

export const VALID_DECISIONS = [
  "undefined",
  "ALLOW",
  "DENY",
  "NEEDS_APPROVAL",
  "objAllow",
  "objAllowReason",
  "objDeny",
  "objNeeds",
  "nullProtoDeny",
  "reasonUndefined",
] as const;
export const MALFORMED_DECISIONS = [
  "lowerAllow",
  "BLOCK",
  "null",
  "zero",
  "true",
  "array",
  "extraKey",
  "badReason",
  "badDecision",
  "emptyObj",
  "instance",
  "throw",
  "throwString",
  "throwNullProto",
  "decisionGetterThrows",
  "thenGetterThrows",
] as const;
export type DecisionKind = (typeof VALID_DECISIONS)[number] | (typeof MALFORMED_DECISIONS)[number];

/** Answers of `needsApproval` and `endsRun`. */
export const VALID_BOOLS = ["true", "false"] as const;
export const MALFORMED_BOOLS = [
  "yes",
  "one",
  "null",
  "undefined",
  "object",
  "throw",
  "throwString",
  "thenGetterThrows",
] as const;
export type BoolKind = (typeof VALID_BOOLS)[number] | (typeof MALFORMED_BOOLS)[number];

export const VALID_PREPARES = [
  "undefined",
  "all",
  "names",
  "toolObjects",
  "toolset",
  "stepTools",
  "stepToolsShown",
  "stepToolsChoice",
] as const;
/** `prepareStep` answers that must reject with `PolicyError`. */
export const MALFORMED_PREPARES = [
  "number",
  "null",
  "badTools",
  "extraKey",
  "badCallable",
  "badChoice",
  "throw",
  "throwString",
  "thenGetterThrows",
  "toolsGetterThrows",
] as const;
/** `prepareStep` answers naming tools that are not there (`UnknownToolError`). */
export const UNKNOWN_PREPARES = ["unknownName", "callableNotShown"] as const;
export type PrepareKind =
  | (typeof VALID_PREPARES)[number]
  | (typeof MALFORMED_PREPARES)[number]
  | (typeof UNKNOWN_PREPARES)[number];

/** What the policy's `executeTool` does. */
export const EXECUTE_MODES = [
  "pass",
  "passAsync",
  "throwBefore",
  "rejectBefore",
  "throwStringBefore",
  "throwAfter",
  "replace",
] as const;
export type ExecuteMode = (typeof EXECUTE_MODES)[number];

/** What a listener does with the events it gets. */
export const LISTENER_KINDS = [
  "throw",
  "reject",
  "mutateArgs",
  "replaceCall",
  "rewriteFields",
  "pushFrozen",
  "replaceParts",
  "mutateResult",
] as const;
export type ListenerKind = (typeof LISTENER_KINDS)[number];

export const STORE_OPS = ["acquire", "put", "release", "get", "claim"] as const;
export type StoreOp = (typeof STORE_OPS)[number];
export const FAULT_KINDS = ["throw", "reject", "garbage", "refuse", "thenGetterThrows"] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

/** One answer of a user callback, given synchronously or as a promise. */
export interface Answer<K> {
  kind: K;
  async: boolean;
}

export interface CallSpec {
  name: CallName;
  args: ArgsKind;
  /** The answer of each hook position, in order. */
  hooks: Answer<HookKind>[];
  decision: Answer<DecisionKind>;
  /** The answer of the tool's `needsApproval` when it is a function. */
  needsApproval: Answer<BoolKind>;
  endsRun: Answer<BoolKind>;
  executeTool: ExecuteMode;
  behaviour: Behaviour;
  /** The human's decision on resume, if the call waits for one. */
  approve: boolean;
}

export interface StepSpec {
  calls: CallSpec[];
  /** The provider throws the scenario's own error for this step. */
  providerError: boolean;
  prepare: Answer<PrepareKind>;
  /** The tools `prepareStep` names (shown, or callable for "stepTools"). */
  subset: ToolName[];
}

export interface ToolSettings {
  maxRetries: number;
  needsApproval: boolean | "fn";
}

export interface Scenario {
  steps: StepSpec[];
  maxSteps: number;
  hookCount: number;
  loopMaxRetries: number;
  tools: Record<ToolName, ToolSettings>;
  hasDecide: boolean;
  hasEndsRun: boolean;
  hasPrepareStep: boolean;
  hasExecuteTool: boolean;
  toolErrors: "continue" | "throw";
  parallel: number;
  providerStream: boolean;
  mode: "run" | "stream";
  listeners: ListenerKind[];
  listenerErrorThrows: boolean;
  store: { op: StoreOp; at: number; kind: FaultKind }[] | null;
  resume: boolean;
}

// ---------------------------------------------------------------------------------------------
// Arbitraries
// ---------------------------------------------------------------------------------------------

/** "basic": well-formed answers and throwing hooks only; "full": every malformed answer too. */
export type Level = "basic" | "full";

const BASIC_HOOKS: HookKind[] = [
  "none",
  "block",
  "blockMsg",
  "result",
  "args",
  "badArgs",
  "argsConfirm",
  "confirmTrue",
  "confirmFalse",
  "stop",
  "stopReason",
  "throw",
];

/**
 * One callback answer: `neutral` answers (those that let a call go on) most often, other valid
 * ones often, malformed ones (when given) now and then; sync or async.
 */
function answerArb<K extends string>(
  neutral: readonly K[],
  valid: readonly K[],
  malformed: readonly K[],
  async: boolean,
  weights: [neutral: number, valid: number, malformed: number] = [6, 3, 1],
): fc.Arbitrary<Answer<K>> {
  const tiers = [
    { kinds: neutral, weight: weights[0] },
    { kinds: valid, weight: weights[1] },
    { kinds: malformed, weight: weights[2] },
  ].filter((tier) => tier.kinds.length > 0 && tier.weight > 0);
  const kind = fc.oneof(
    ...tiers.map((tier) => ({ arbitrary: fc.constantFrom(...tier.kinds), weight: tier.weight })),
  );
  return fc.record({ kind, async: async ? fc.boolean() : fc.constant(false) });
}

const weighted = <T>(...entries: [T, number][]): fc.Arbitrary<T> =>
  fc.oneof(...entries.map(([value, weight]) => ({ arbitrary: fc.constant(value), weight })));

const NEUTRAL_HOOKS: HookKind[] = [
  "none",
  "empty",
  "args",
  "undefinedKeys",
  "blockFalse",
  "stopFalse",
];

function callArb(level: Level): fc.Arbitrary<CallSpec> {
  const full = level === "full";
  const others = (kinds: readonly HookKind[]) => kinds.filter((k) => !NEUTRAL_HOOKS.includes(k));
  return fc.record({
    name: weighted<CallName>(["a", 4], ["b", 4], ["c", 3], ["missing", 1]),
    args: full
      ? weighted<ArgsKind>(
          ["valid", 10],
          ["proto", 2],
          ["empty", 2],
          ["schema", 1],
          ["json", 1],
          ["deep", 1],
        )
      : weighted<ArgsKind>(["valid", 8], ["empty", 2], ["schema", 1], ["json", 1]),
    hooks: fc.array(
      full
        ? answerArb<HookKind>(NEUTRAL_HOOKS, others(VALID_HOOKS), MALFORMED_HOOKS, true, [12, 4, 1])
        : answerArb<HookKind>(["none", "args"], others(BASIC_HOOKS), [], false, [8, 3, 0]),
      { minLength: 3, maxLength: 3 },
    ),
    decision: full
      ? answerArb<DecisionKind>(
          ["undefined", "ALLOW", "objAllow", "objAllowReason", "reasonUndefined"],
          ["DENY", "NEEDS_APPROVAL", "objDeny", "objNeeds", "nullProtoDeny"],
          MALFORMED_DECISIONS,
          true,
          [10, 3, 1],
        )
      : answerArb<DecisionKind>(["undefined", "ALLOW"], ["DENY", "NEEDS_APPROVAL"], [], false),
    needsApproval: full
      ? answerArb<BoolKind>(["false"], ["true"], MALFORMED_BOOLS, true, [10, 3, 1])
      : answerArb<BoolKind>(["false"], ["true"], [], false),
    endsRun: full
      ? answerArb<BoolKind>(["false"], ["true"], MALFORMED_BOOLS, true, [12, 2, 1])
      : answerArb<BoolKind>(["false"], [], [], false),
    executeTool: weighted<ExecuteMode>(
      ["pass", 6],
      ["passAsync", 4],
      ["replace", 1],
      ["throwAfter", 1],
      ["throwBefore", 1],
      ["rejectBefore", 1],
      ["throwStringBefore", 1],
    ),
    behaviour: full
      ? weighted<Behaviour>(
          ["ok", 10],
          ["undefined", 2],
          ["throw", 2],
          ["throwString", 1],
          ["throwNullProto", 1],
          ["retry", 2],
          ["unfit", 1],
        )
      : weighted<Behaviour>(["ok", 6], ["undefined", 2], ["throw", 2], ["retry", 2]),
    approve: fc.boolean(),
  });
}

function stepArb(level: Level): fc.Arbitrary<StepSpec> {
  const full = level === "full";
  return fc.record({
    calls: fc.array(callArb(level), { minLength: 1, maxLength: 4 }),
    providerError: full ? weighted([false, 20], [true, 1]) : fc.constant(false),
    prepare: answerArb<PrepareKind>(
      ["undefined", "all"],
      VALID_PREPARES.filter((k) => k !== "undefined" && k !== "all"),
      [...MALFORMED_PREPARES, ...UNKNOWN_PREPARES],
      true,
      [16, 4, 1],
    ),
    subset: fc.subarray([...TOOL_NAMES]),
  });
}

const toolSettingsArb = (level: Level): fc.Arbitrary<ToolSettings> =>
  fc.record({
    maxRetries: weighted([0, 1], [1, 2], [2, 2], [3, 2]),
    needsApproval:
      level === "full"
        ? fc.constantFrom<boolean | "fn">(false, false, true, "fn", "fn")
        : fc.constantFrom<boolean | "fn">(false, false, false, true),
  });

/**
 * `without`: answer kinds, listener kinds, executeTool modes or behaviours never to generate
 * (to isolate one known bug from the rest).
 */
export function scenarioArb(level: Level, without: readonly string[] = []): fc.Arbitrary<Scenario> {
  return scenarioArbOf(level).filter((s) => !mentions(s, new Set(without)));
}

/**
 * Whether a scenario uses any of the given kinds: a bare kind ("thenGetterThrows") anywhere, or
 * one qualified by where it is ("hook:", "decision:", "needsApproval:", "endsRun:", "prepare:",
 * "execute:", "behaviour:", "listener:", "fault:<op or kind>").
 */
function mentions(s: Scenario, kinds: Set<string>): boolean {
  if (kinds.size === 0) return false;
  const has = (where: string, kind: string) => kinds.has(kind) || kinds.has(`${where}:${kind}`);
  if (s.listeners.some((kind) => has("listener", kind))) return true;
  if (s.store?.some((fault) => has("fault", fault.op) || has("fault", fault.kind))) return true;
  return s.steps.some(
    (step) =>
      (s.hasPrepareStep && has("prepare", step.prepare.kind)) ||
      step.calls.some(
        (call) =>
          call.hooks.slice(0, s.hookCount).some((h) => has("hook", h.kind)) ||
          (s.hasDecide && has("decision", call.decision.kind)) ||
          has("needsApproval", call.needsApproval.kind) ||
          (s.hasEndsRun && has("endsRun", call.endsRun.kind)) ||
          (s.hasExecuteTool && has("execute", call.executeTool)) ||
          has("behaviour", call.behaviour),
      ),
  );
}

function scenarioArbOf(level: Level): fc.Arbitrary<Scenario> {
  const full = level === "full";
  const flag = (p: boolean) => (full ? fc.boolean() : fc.constant(p));
  return fc.record({
    steps: fc.array(stepArb(level), { minLength: 1, maxLength: 5 }),
    maxSteps: fc.integer({ min: 1, max: 6 }),
    hookCount: fc.integer({ min: 0, max: full ? 3 : 2 }),
    loopMaxRetries: fc.integer({ min: 0, max: 2 }),
    tools: fc.record({
      a: toolSettingsArb(level),
      b: toolSettingsArb(level),
      c: toolSettingsArb(level),
    }),
    hasDecide: full ? fc.boolean() : fc.constantFrom(true, true, false),
    hasEndsRun: flag(false),
    hasPrepareStep: flag(false),
    hasExecuteTool: flag(false),
    toolErrors: fc.constantFrom<"continue" | "throw">("continue", "continue", "throw"),
    parallel: fc.integer({ min: 1, max: 4 }),
    providerStream: fc.boolean(),
    mode: full ? fc.constantFrom<"run" | "stream">("run", "stream") : fc.constant("run" as const),
    listeners: full
      ? fc.subarray([...LISTENER_KINDS], { maxLength: 3 })
      : fc.constant([] as ListenerKind[]),
    listenerErrorThrows: flag(false),
    store: full
      ? fc.oneof(
          { arbitrary: fc.constant<Scenario["store"]>(null), weight: 3 },
          { arbitrary: fc.constant<Scenario["store"]>([]), weight: 2 },
          {
            arbitrary: fc.array(
              fc.record({
                op: fc.constantFrom(...STORE_OPS),
                at: fc.integer({ min: 0, max: 8 }),
                kind: fc.constantFrom(...FAULT_KINDS),
              }),
              { minLength: 1, maxLength: 2 },
            ),
            weight: 2,
          },
        )
      : fc.constant(null),
    resume: full ? weighted([true, 3], [false, 1]) : fc.constant(false),
  });
}

// ---------------------------------------------------------------------------------------------
// Values: what each answer kind is, as user code would give it
// ---------------------------------------------------------------------------------------------

/** The error a scenario's provider throws; it must reach the caller unchanged. */
export class ScenarioProviderError extends Error {}

const DEEP = `${"[".repeat(70)}${"]".repeat(70)}`;

export function argsText(kind: ArgsKind): string {
  switch (kind) {
    case "valid":
      return '{"n":1}';
    case "schema":
      return '{"n":"one"}';
    case "json":
      return '{"n":';
    case "empty":
      return "";
    case "proto":
      return '{"n":1,"__proto__":{"polluted":true}}';
    case "deep":
      return `{"n":1,"x":${DEEP}}`;
  }
}

/** The model's args as DESIGN section 10 reads them (prototype-safe, within limits), or none. */
function modelArgs(kind: ArgsKind): { ok: true; value: unknown } | { ok: false } {
  switch (kind) {
    case "valid":
    case "proto":
      return { ok: true, value: { n: 1 } };
    case "schema":
      return { ok: true, value: { n: "one" } };
    case "empty":
      return { ok: true, value: {} };
    case "json":
    case "deep":
      return { ok: false };
  }
}

/** Whether args (model form) satisfy a tool's schema: `{ n: number }`, and `n` optional for b. */
function fitsSchema(name: ToolName, value: unknown): boolean {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const n = (value as { n?: unknown }).n;
  return typeof n === "number" || (name === "b" && n === undefined);
}

const throwing = (what: string) => () => {
  throw new Error(what);
};

function thenGetterThrows(): object {
  return {
    // biome-ignore lint/suspicious/noThenProperty: a thenable whose `then` getter throws is the point
    get then() {
      throw new Error("a `then` getter that throws");
    },
  };
}

/** A pre-call hook's answer (a throw is thrown). */
function hookValue(kind: HookKind): unknown {
  switch (kind) {
    case "none":
      return undefined;
    case "empty":
      return {};
    case "block":
      return { block: true };
    case "blockMsg":
      return { block: "blocked by a hook" };
    case "blockEmpty":
      return { block: "" };
    case "blockFalse":
      return { block: false };
    case "result":
      return { result: "from hook" };
    case "resultNull":
      return { result: null };
    case "resultObj":
      return { result: { x: 1 } };
    case "args":
      return { args: { n: 2 } };
    case "argsEmpty":
      return { args: {} };
    case "argsConfirm":
      return { args: { n: 3 }, confirm: true };
    case "confirmTrue":
      return { confirm: true };
    case "confirmFalse":
      return { confirm: false };
    case "stop":
      return { stop: true };
    case "stopReason":
      return { stop: true, stopReason: "random stop" };
    case "stopFalse":
      return { stop: false };
    case "stopBlock":
      return { stop: true, block: true };
    case "blockResult":
      return { block: "blocked, not answered", result: 1 };
    case "undefinedKeys":
      return { block: undefined, result: undefined, args: undefined, confirm: undefined };
    case "nullProtoBlock":
      return Object.assign(Object.create(null), { block: true });
    case "badArgs":
      return { args: { n: "bad" } };
    case "argsBigInt":
      return { args: { n: 1n } };
    case "argsCircular": {
      const args: Record<string, unknown> = { n: 1 };
      args.self = args;
      return { args };
    }
    case "argsFunction":
      return { args: () => ({ n: 1 }) };
    case "argsNull":
      return { args: null };
    case "argsDeep":
      return { args: { n: 1, x: JSON.parse(DEEP) } };
    case "deny":
      return { deny: true };
    case "array":
      return ["block"];
    case "null":
      return null;
    case "confirmNull":
      return { confirm: null };
    case "confirmString":
      return { confirm: "yes" };
    case "blockNumber":
      return { block: 1 };
    case "stopString":
      return { stop: "true" };
    case "stopReasonNumber":
      return { stop: true, stopReason: 5 };
    case "zero":
      return 0;
    case "string":
      return "block";
    case "true":
      return true;
    case "instance":
      return new (class Verdict {
        block = true;
      })();
    case "map":
      return new Map([["block", true]]);
    case "blockGetterThrows":
      return {
        get block() {
          throw new Error("a getter that throws");
        },
      };
    case "thenGetterThrows":
      return thenGetterThrows();
    case "toStringThrows":
      return { toString: throwing("toString throws") };
    case "throw":
      throw new Error("hook failed");
    case "throwString":
      throw "hook failed (a string)";
    case "throwNullProto":
      throw Object.create(null);
    case "throwToStringThrows":
      throw { toString: throwing("toString throws") };
  }
}

function decisionValue(kind: DecisionKind): unknown {
  switch (kind) {
    case "undefined":
      return undefined;
    case "ALLOW":
    case "DENY":
    case "NEEDS_APPROVAL":
      return kind;
    case "objAllow":
      return { decision: "ALLOW" };
    case "objAllowReason":
      return { decision: "ALLOW", reason: "fine" };
    case "objDeny":
      return { decision: "DENY", reason: "policy says no" };
    case "objNeeds":
      return { decision: "NEEDS_APPROVAL", reason: "ask a human" };
    case "nullProtoDeny":
      return Object.assign(Object.create(null), { decision: "DENY" });
    case "reasonUndefined":
      return { decision: "ALLOW", reason: undefined };
    case "lowerAllow":
      return "allow";
    case "BLOCK":
      return "BLOCK";
    case "null":
      return null;
    case "zero":
      return 0;
    case "true":
      return true;
    case "array":
      return ["ALLOW"];
    case "extraKey":
      return { decision: "ALLOW", extra: 1 };
    case "badReason":
      return { decision: "DENY", reason: 5 };
    case "badDecision":
      return { decision: "MAYBE" };
    case "emptyObj":
      return {};
    case "instance":
      return new (class Decision {
        decision = "ALLOW";
      })();
    case "throw":
      throw new Error("decideToolCall failed");
    case "throwString":
      throw "decideToolCall failed (a string)";
    case "throwNullProto":
      throw Object.create(null);
    case "decisionGetterThrows":
      return {
        get decision() {
          throw new Error("a getter that throws");
        },
      };
    case "thenGetterThrows":
      return thenGetterThrows();
  }
}

function boolValue(kind: BoolKind): unknown {
  switch (kind) {
    case "true":
      return true;
    case "false":
      return false;
    case "yes":
      return "yes";
    case "one":
      return 1;
    case "null":
      return null;
    case "undefined":
      return undefined;
    case "object":
      return {};
    case "throw":
      throw new Error("callback failed");
    case "throwString":
      throw "callback failed (a string)";
    case "thenGetterThrows":
      return thenGetterThrows();
  }
}

function prepareValue(
  kind: PrepareKind,
  subset: ToolName[],
  tools: Record<ToolName, Tool<unknown>>,
): unknown {
  const all = [...TOOL_NAMES];
  switch (kind) {
    case "undefined":
      return undefined;
    case "all":
      return all;
    case "names":
      return subset.slice();
    case "toolObjects":
      return subset.map((name) => tools[name]);
    case "toolset":
      return toolset(subset.map((name) => tools[name]));
    case "stepTools":
      return { tools: all, callable: subset.slice() };
    case "stepToolsShown":
      return { tools: subset.slice() };
    case "stepToolsChoice":
      return { tools: subset.slice(), toolChoice: "auto" };
    case "number":
      return 5;
    case "null":
      return null;
    case "badTools":
      return { tools: 5 };
    case "extraKey":
      return { tools: subset.slice(), extra: 1 };
    case "badCallable":
      return { tools: all, callable: "a" };
    case "badChoice":
      return { tools: all, toolChoice: "sometimes" };
    case "throw":
      throw new Error("prepareStep failed");
    case "throwString":
      throw "prepareStep failed (a string)";
    case "thenGetterThrows":
      return thenGetterThrows();
    case "toolsGetterThrows":
      return {
        get tools() {
          throw new Error("a getter that throws");
        },
      };
    case "unknownName":
      return [...subset, "zzz"];
    case "callableNotShown":
      return { tools: subset.slice(), callable: [...subset, "missing"] };
  }
}

/** Gives an answer as user code would: the value (or throw), or a promise of it. */
function answer<K>(given: Answer<K>, value: (kind: K) => unknown): unknown {
  if (!given.async) return value(given.kind);
  return (async () => value(given.kind))();
}

// ---------------------------------------------------------------------------------------------
// The oracle
// ---------------------------------------------------------------------------------------------

type ErrorClass = abstract new (...args: never[]) => Error;

/** What the oracle says about one call in one phase (the run, or the resume). */
export interface ExpectedCall {
  id: string;
  verdict: Verdict;
  /** Who decided, where DESIGN says it; `undefined`: not checked. */
  by?: string;
  /** The call's final args in the model's form, when they parsed. */
  args?: unknown;
  /** A `tool-call` event in this phase (a resumed call had it in the run). */
  toolCallEvent: boolean;
  /** Its result in this phase: `undefined` while it waits for approval. */
  result?: { isError: boolean; output?: unknown };
}

/** A step whose phase two may fail: calls start in call order, and a failure stops the rest. */
export interface FailingStep {
  /** The allowed calls, in call order. */
  allowed: { id: string; runsTool: boolean }[];
  /** The classes a failure within the first `k` allowed calls can have. */
  classesWithin: (k: number) => ErrorClass[];
}

export type ExpectedOutcome =
  | {
      kind: "resolve";
      status: RunResult["status"];
      pending: string[];
      endedBy?: string;
      stopReason?: string;
    }
  | { kind: "reject"; classes: ErrorClass[]; provider?: boolean };

export interface PhaseExpectation {
  outcome: ExpectedOutcome;
  /** Calls whose tool certainly runs, with the args `execute` gets. */
  executed: Map<string, unknown>;
  /** Calls that reached the gate, in order. */
  calls: ExpectedCall[];
  failing?: FailingStep;
  /** Args of every call that may run in a failing step. */
  mayRunArgs: Map<string, unknown>;
  /** Final args (model form) of every call that phase two may start, `executeTool` or not. */
  allowedArgs: Map<string, unknown>;
  hookLog: { id: string; index: number; args: unknown }[];
  decideLog: { id: string; args: unknown; needsApproval: boolean }[];
  prepareLog: { stepIndex: number; executed: string[] }[];
  endsRunLog: string[];
}

export interface Expectation {
  run: PhaseExpectation;
  /** When the scenario resumes a paused run. */
  resume?: PhaseExpectation;
}

const VALID_HOOK_SET = new Set<string>(VALID_HOOKS);
const VALID_DECISION_SET = new Set<string>(VALID_DECISIONS);
const VALID_BOOL_SET = new Set<string>(VALID_BOOLS);

type HookEffect =
  | { type: "continue"; args?: unknown; confirm?: boolean }
  | { type: "stop"; reason?: string }
  | { type: "block" }
  | { type: "result"; output: unknown }
  | { type: "error" };

/** What one hook answer means for a call to `tool` (DESIGN section 4). */
function hookEffect(kind: HookKind, name: ToolName): HookEffect {
  if (!VALID_HOOK_SET.has(kind)) return { type: "error" };
  switch (kind) {
    case "block":
    case "blockMsg":
    case "blockEmpty":
    case "nullProtoBlock":
    case "blockResult":
      return { type: "block" };
    case "result":
      return { type: "result", output: "from hook" };
    case "resultNull":
      return { type: "result", output: null };
    case "resultObj":
      return { type: "result", output: { x: 1 } };
    case "args":
      return { type: "continue", args: { n: 2 } };
    case "argsEmpty":
      return fitsSchema(name, {}) ? { type: "continue", args: {} } : { type: "error" };
    case "argsConfirm":
      return { type: "continue", args: { n: 3 }, confirm: true };
    case "confirmTrue":
      return { type: "continue", confirm: true };
    case "confirmFalse":
      return { type: "continue", confirm: false };
    case "stop":
    case "stopBlock":
      return { type: "stop" };
    case "stopReason":
      return { type: "stop", reason: "random stop" };
    default:
      return { type: "continue" }; // none, empty, blockFalse, stopFalse, undefinedKeys
  }
}

type Decision = "ALLOW" | "DENY" | "NEEDS_APPROVAL" | undefined;

function decisionOf(kind: DecisionKind): Decision {
  switch (kind) {
    case "ALLOW":
    case "objAllow":
    case "objAllowReason":
    case "reasonUndefined":
      return "ALLOW";
    case "DENY":
    case "objDeny":
    case "nullProtoDeny":
      return "DENY";
    case "NEEDS_APPROVAL":
    case "objNeeds":
      return "NEEDS_APPROVAL";
    default:
      return undefined;
  }
}

/** What `prepareStep`'s answer makes callable, or the error it is. */
function prepared(
  kind: PrepareKind,
  subset: ToolName[],
): { ok: true; callable: Set<string> } | { ok: false; classes: ErrorClass[] } {
  switch (kind) {
    case "undefined":
    case "all":
      return { ok: true, callable: new Set(TOOL_NAMES) };
    case "names":
    case "toolObjects":
    case "toolset":
    case "stepTools":
    case "stepToolsShown":
    case "stepToolsChoice":
      return { ok: true, callable: new Set(subset) };
    case "unknownName":
      return { ok: false, classes: [UnknownToolError] };
    case "callableNotShown":
      // DESIGN: "callable must be a subset of the shown tools"; the error class is not named.
      return { ok: false, classes: [UnknownToolError, PolicyError] };
    default:
      return { ok: false, classes: [PolicyError] };
  }
}

/** How one allowed call settles (DESIGN sections 2, 5 and 8). */
interface Settlement {
  runsTool: boolean;
  kind: "ok" | "toolError" | "retry" | "unfit" | "policy";
  output?: unknown;
}

function settlementOf(s: Scenario, id: string, spec: CallSpec): Settlement {
  const own = (): Settlement => {
    switch (spec.behaviour) {
      case "ok":
        return { runsTool: true, kind: "ok", output: { id } };
      case "undefined":
        return { runsTool: true, kind: "ok", output: null };
      case "retry":
        return { runsTool: true, kind: "retry" };
      case "unfit":
        return { runsTool: true, kind: "unfit" };
      default:
        return { runsTool: true, kind: "toolError" };
    }
  };
  if (!s.hasExecuteTool) return own();
  switch (spec.executeTool) {
    case "pass":
    case "passAsync":
      return own();
    case "throwAfter": {
      const settled = own();
      // The tool's own error passes through executeTool; otherwise executeTool's own throw.
      return settled.kind === "toolError" || settled.kind === "retry"
        ? settled
        : { runsTool: true, kind: "policy" };
    }
    case "replace":
      return { runsTool: false, kind: "ok", output: "replaced" };
    default:
      return { runsTool: false, kind: "policy" };
  }
}

interface Model {
  retries: Map<string, number>;
  unavailable: Map<string, number>;
  executed: string[];
}

/** The classes with which a phase two over `settled` fails, given the retries before it. */
function failureClasses(
  s: Scenario,
  settled: { tool: ToolName; settlement: Settlement }[],
  retries: Map<string, number>,
): ErrorClass[] {
  const classes = new Set<ErrorClass>();
  const counts = new Map(retries);
  for (const { tool, settlement } of settled) {
    switch (settlement.kind) {
      case "policy":
        classes.add(PolicyError);
        break;
      case "toolError":
        if (s.toolErrors === "throw") classes.add(ToolExecutionError);
        break;
      case "unfit":
        if (s.toolErrors === "throw") classes.add(ToolOutputError);
        break;
      case "retry": {
        const count = (counts.get(tool) ?? 0) + 1;
        counts.set(tool, count);
        if (count > s.tools[tool].maxRetries) classes.add(ToolRetriesExceededError);
        break;
      }
    }
  }
  return [...classes];
}

function emptyPhase(): PhaseExpectation {
  return {
    outcome: { kind: "reject", classes: [] },
    executed: new Map(),
    calls: [],
    mayRunArgs: new Map(),
    allowedArgs: new Map(),
    hookLog: [],
    decideLog: [],
    prepareLog: [],
    endsRunLog: [],
  };
}

/** A pending step, for the resume. */
interface Paused {
  step: number;
  pending: { id: string; tool: ToolName; args: unknown; spec: CallSpec }[];
  endedBy?: string;
}

/** Predicts a scenario from DESIGN.md alone. */
export function predict(s: Scenario): Expectation {
  const model: Model = { retries: new Map(), unavailable: new Map(), executed: [] };
  const run = emptyPhase();
  const paused = runSteps(s, model, run, 0);
  const expectation: Expectation = { run };
  if (paused && s.resume) {
    const resume = emptyPhase();
    resumeStep(s, model, resume, paused);
    expectation.resume = resume;
  }
  return expectation;
}

/**
 * Phase two of a step and what follows it (DESIGN section 5 (5)–(6), section 10 "endsRun"):
 * returns the id of the call that ends the run, `false` when the run rejected, `undefined` when
 * it goes on.
 */
function settle(
  s: Scenario,
  model: Model,
  phase: PhaseExpectation,
  allowed: { id: string; tool: ToolName; args: unknown; spec: CallSpec; expected: ExpectedCall }[],
  askEndsRun: boolean,
): string | false | undefined {
  const settled = allowed.map((call) => ({
    ...call,
    settlement: settlementOf(s, call.id, call.spec),
  }));
  for (const call of allowed) phase.allowedArgs.set(call.id, call.args);
  const classes = failureClasses(s, settled, model.retries);
  if (classes.length > 0) {
    phase.outcome = { kind: "reject", classes };
    for (const call of settled)
      if (call.settlement.runsTool) phase.mayRunArgs.set(call.id, call.args);
    phase.failing = {
      allowed: settled.map((call) => ({ id: call.id, runsTool: call.settlement.runsTool })),
      classesWithin: (k) => failureClasses(s, settled.slice(0, k), model.retries),
    };
    return false;
  }
  for (const call of settled) {
    const { settlement } = call;
    if (settlement.runsTool) phase.executed.set(call.id, call.args);
    if (settlement.kind === "retry") {
      model.retries.set(call.tool, (model.retries.get(call.tool) ?? 0) + 1);
    }
    call.expected.result =
      settlement.kind === "ok" ? { isError: false, output: settlement.output } : { isError: true };
    if (settlement.kind === "ok") model.executed.push(call.tool);
  }
  if (!s.hasEndsRun || !askEndsRun) return undefined;
  for (const call of settled) {
    if (call.settlement.kind !== "ok") continue;
    phase.endsRunLog.push(call.id);
    const { kind } = call.spec.endsRun;
    if (!VALID_BOOL_SET.has(kind)) {
      phase.outcome = { kind: "reject", classes: [PolicyError] };
      return false;
    }
    if (kind === "true") return call.id;
  }
  return undefined;
}

/** Runs steps from `first` until the run ends; returns the paused step, if it paused. */
function runSteps(
  s: Scenario,
  model: Model,
  phase: PhaseExpectation,
  first: number,
): Paused | undefined {
  const reject = (classes: ErrorClass[]) => {
    phase.outcome = { kind: "reject", classes };
  };
  for (let step = first; ; step++) {
    if (step >= s.maxSteps) {
      phase.outcome = { kind: "resolve", status: "max_steps", pending: [] };
      return undefined;
    }
    const spec = s.steps[step];
    let callable = new Set<string>(TOOL_NAMES);
    if (s.hasPrepareStep) {
      phase.prepareLog.push({ stepIndex: step, executed: model.executed.slice() });
      const answerOf = spec
        ? prepared(spec.prepare.kind, spec.subset)
        : { ok: true as const, callable };
      if (!answerOf.ok) return void reject(answerOf.classes);
      callable = answerOf.callable;
    }
    if (spec?.providerError) {
      phase.outcome = { kind: "reject", classes: [ScenarioProviderError], provider: true };
      return undefined;
    }
    if (!spec || spec.calls.length === 0) {
      phase.outcome = { kind: "resolve", status: "completed", pending: [] };
      return undefined;
    }
    // Phase one: every call through the gate, in call order.
    let stop: { reason?: string } | undefined;
    const allowed: Parameters<typeof settle>[3] = [];
    const pending: Paused["pending"] = [];
    const stepCalls: ExpectedCall[] = [];
    for (const [index, call] of spec.calls.entries()) {
      const id = `s${step}c${index}`;
      const expected: ExpectedCall = { id, verdict: "allow", toolCallEvent: true };
      phase.calls.push(expected);
      stepCalls.push(expected);
      if (stop) {
        expected.verdict = "stop";
        continue;
      }
      const outcome = gateOne(s, model, phase, call, id, callable);
      if (outcome.kind === "error") {
        // A retries overflow is judged (invalid, unavailable) before it rejects; a throwing or
        // malformed callback leaves the call without a decision.
        if (outcome.verdict) expected.verdict = outcome.verdict;
        else phase.calls.pop();
        return void reject(outcome.classes);
      }
      Object.assign(expected, outcome.expected);
      if (expected.verdict === "stop") stop = outcome.stop ?? {};
      if (expected.verdict === "allow") {
        allowed.push({
          id,
          tool: call.name as ToolName,
          args: expected.args,
          spec: call,
          expected,
        });
      }
      if (expected.verdict === "needs-approval") {
        pending.push({ id, tool: call.name as ToolName, args: expected.args, spec: call });
      }
    }
    if (stop) {
      for (const call of stepCalls) call.result = { isError: true };
      phase.outcome = { kind: "resolve", status: "stopped", pending: [] };
      if (stop.reason !== undefined) phase.outcome.stopReason = stop.reason;
      return undefined;
    }
    const ended = settle(s, model, phase, allowed, true);
    if (ended === false) return undefined;
    if (pending.length > 0) {
      phase.outcome = {
        kind: "resolve",
        status: "needs_approval",
        pending: pending.map((p) => p.id),
      };
      return ended === undefined ? { step, pending } : { step, pending, endedBy: ended };
    }
    if (ended !== undefined) {
      phase.outcome = { kind: "resolve", status: "ended_by_tool", pending: [], endedBy: ended };
      return undefined;
    }
  }
}

/** Gates one call: callable? → args → hooks → decision (DESIGN section 5, order for each call). */
function gateOne(
  s: Scenario,
  model: Model,
  phase: PhaseExpectation,
  call: CallSpec,
  id: string,
  callable: Set<string>,
):
  | { kind: "error"; classes: ErrorClass[]; verdict?: Verdict }
  | { kind: "judged"; expected: Partial<ExpectedCall>; stop?: { reason?: string } } {
  const judged = (expected: Partial<ExpectedCall>, stop?: { reason?: string }) =>
    ({ kind: "judged", expected, ...(stop ? { stop } : {}) }) as const;
  if (!callable.has(call.name)) {
    const count = (model.unavailable.get(call.name) ?? 0) + 1;
    model.unavailable.set(call.name, count);
    if (count > s.loopMaxRetries) {
      return { kind: "error", classes: [ToolRetriesExceededError], verdict: "unavailable" };
    }
    return judged({ verdict: "unavailable", result: { isError: true } });
  }
  const name = call.name as ToolName;
  const read = modelArgs(call.args);
  if (!read.ok || !fitsSchema(name, read.value)) {
    const count = (model.retries.get(name) ?? 0) + 1;
    model.retries.set(name, count);
    if (count > s.tools[name].maxRetries) {
      return { kind: "error", classes: [ToolRetriesExceededError], verdict: "invalid" };
    }
    return judged({ verdict: "invalid", by: "schema", result: { isError: true } });
  }
  let args = read.value;
  let confirm: { value: boolean; by: string } | undefined;
  for (let index = 0; index < s.hookCount; index++) {
    phase.hookLog.push({ id, index, args });
    const effect = hookEffect(call.hooks[index]!.kind, name);
    const by = `hook:${index}`;
    switch (effect.type) {
      case "error":
        return { kind: "error", classes: [HookError] };
      case "stop":
        return judged({ verdict: "stop", by, args }, effect.reason === undefined ? {} : effect);
      case "block":
        return judged({ verdict: "block", by, args, result: { isError: true } });
      case "result":
        return judged({
          verdict: "result",
          by,
          args,
          result: { isError: false, output: effect.output },
        });
      case "continue":
        if (effect.confirm !== undefined) confirm = { value: effect.confirm, by };
        if (effect.args !== undefined) args = effect.args;
    }
  }
  // The decision: a policy DENY; else the last hook confirm; else the policy; else the tool.
  const setting = s.tools[name].needsApproval;
  let needsApproval = setting === true;
  if (setting === "fn" && (s.hasDecide || confirm === undefined)) {
    const { kind } = call.needsApproval;
    if (!VALID_BOOL_SET.has(kind)) return { kind: "error", classes: [PolicyError] };
    needsApproval = kind === "true";
  }
  let decision: Decision;
  if (s.hasDecide) {
    phase.decideLog.push({ id, args, needsApproval });
    if (!VALID_DECISION_SET.has(call.decision.kind)) {
      return { kind: "error", classes: [PolicyError] };
    }
    decision = decisionOf(call.decision.kind);
    if (decision === "DENY")
      return judged({ verdict: "deny", by: "policy", args, result: { isError: true } });
  }
  if (confirm) {
    return judged({ verdict: confirm.value ? "needs-approval" : "allow", by: confirm.by, args });
  }
  if (decision === "ALLOW") return judged({ verdict: "allow", by: "policy", args });
  if (decision === "NEEDS_APPROVAL")
    return judged({ verdict: "needs-approval", by: "policy", args });
  return needsApproval
    ? judged({ verdict: "needs-approval", by: "tool", args })
    : judged({ verdict: "allow", by: "default", args });
}

/** The resume of a paused run: decided calls settle, then the loop goes on (DESIGN section 5). */
function resumeStep(s: Scenario, model: Model, phase: PhaseExpectation, paused: Paused): void {
  const allowed: Parameters<typeof settle>[3] = [];
  for (const call of paused.pending) {
    const expected: ExpectedCall = {
      id: call.id,
      verdict: call.spec.approve ? "allow" : "deny",
      by: "approval",
      args: call.args,
      toolCallEvent: false,
    };
    phase.calls.push(expected);
    if (call.spec.approve) allowed.push({ ...call, expected });
    else expected.result = { isError: true };
  }
  const ended = settle(s, model, phase, allowed, paused.endedBy === undefined);
  if (ended === false) return;
  const endedBy = paused.endedBy ?? ended;
  if (endedBy !== undefined) {
    phase.outcome = { kind: "resolve", status: "ended_by_tool", pending: [], endedBy };
    return;
  }
  runSteps(s, model, phase, paused.step + 1);
}

// ---------------------------------------------------------------------------------------------
// The harness
// ---------------------------------------------------------------------------------------------

export type Outcome = { ok: true; result: RunResult } | { ok: false; error: unknown };

/** What one phase (the run, or the resume) did, as user code saw it. */
export interface PhaseObservation {
  outcome: Outcome;
  /** Tool executions: the call, and the args `execute` got. */
  executed: { id: string; args: unknown }[];
  /** Calls whose execution started (`executeTool` entered, or the tool itself without one). */
  started: string[];
  /** `call.args` as `executeTool` and `endsRun` saw them. */
  callArgs: { id: string; where: string; args: unknown }[];
  hookLog: { id: string; index: number; args: unknown }[];
  decideLog: { id: string; args: unknown; needsApproval: boolean }[];
  prepareLog: { stepIndex: number; executed: string[] }[];
  endsRunLog: string[];
  /** Events as they were emitted, before any listener could touch them. */
  events: {
    type: string;
    toolCallId?: string;
    verdict?: string;
    by?: string;
    isError?: boolean;
  }[];
  /** Store faults served during this phase. */
  faults: { op: StoreOp; kind: FaultKind }[];
}

export interface Observation {
  run: PhaseObservation;
  resume?: PhaseObservation;
  providerError: ScenarioProviderError;
  listenerErrors: number;
}

function emptyObservation(): PhaseObservation {
  return {
    outcome: { ok: true, result: undefined as unknown as RunResult },
    executed: [],
    started: [],
    callArgs: [],
    hookLog: [],
    decideLog: [],
    prepareLog: [],
    endsRunLog: [],
    events: [],
    faults: [],
  };
}

/** JSON data as plain copies, so later changes cannot reach what was recorded. */
const copy = (value: unknown): unknown =>
  value === undefined ? undefined : JSON.parse(JSON.stringify(value));

/** `memoryRunStore()` whose operations fail as the scenario says, counted per operation. */
function faultyStore(
  faults: NonNullable<Scenario["store"]>,
  served: () => PhaseObservation["faults"],
): RunStore {
  const inner = memoryRunStore();
  const counts = new Map<StoreOp, number>();
  const garbage: Record<StoreOp, unknown> = {
    acquire: { token: "x" },
    put: "yes",
    release: undefined,
    get: "a state",
    claim: 1,
  };
  const refusal: Record<StoreOp, unknown> = {
    acquire: undefined,
    put: false,
    release: undefined,
    get: undefined,
    claim: false,
  };
  const wrap =
    <A extends unknown[]>(op: StoreOp, real: (...args: A) => Promise<unknown>) =>
    (...args: A): Promise<any> => {
      const at = counts.get(op) ?? 0;
      counts.set(op, at + 1);
      const fault = faults.find((f) => f.op === op && f.at === at);
      if (!fault) return real(...args);
      served().push({ op, kind: fault.kind });
      switch (fault.kind) {
        case "throw":
          throw new Error(`store ${op} failed`);
        case "reject":
          return Promise.reject(new Error(`store ${op} rejected`));
        case "garbage":
          return Promise.resolve(garbage[op]);
        case "refuse":
          return Promise.resolve(refusal[op]);
        case "thenGetterThrows":
          return thenGetterThrows() as Promise<unknown>;
      }
    };
  return {
    get: wrap("get", inner.get),
    acquire: wrap("acquire", inner.acquire),
    renew: inner.renew,
    put: wrap("put", inner.put),
    release: wrap("release", inner.release),
    claim: wrap("claim", inner.claim),
  };
}

/** Listens to every event of a run, doing what the scenario's listener kind does. */
function listenerFor(kind: ListenerKind): (event: LoopEvent) => unknown {
  return (event) => {
    const anyEvent = event as any;
    switch (kind) {
      case "throw":
        throw new Error(`listener failed on ${event.type}`);
      case "reject":
        return Promise.reject(new Error(`listener rejected on ${event.type}`));
      case "mutateArgs":
        if (event.type === "tool-decision" && event.call) {
          (event.call.args as Record<string, unknown>).x = 1;
          (event.call.args as Record<string, unknown>).n = 999;
        }
        return;
      case "replaceCall":
        if (event.type === "tool-decision" && event.call) {
          anyEvent.call = { ...event.call, args: { n: 999 } };
        }
        return;
      case "rewriteFields":
        if ("toolName" in event) anyEvent.toolName = "a";
        if ("rawArgs" in event) anyEvent.rawArgs = '{"n":999}';
        if (event.type === "tool-decision") anyEvent.verdict = "allow";
        if (event.type === "tool-result") anyEvent.output = "rewritten by a listener";
        if (event.type === "step-start") anyEvent.callable = ["a", "b", "c", "missing"];
        return;
      case "pushFrozen":
        if (event.type === "step-start") event.tools.push("missing");
        if (event.type === "model-response") (event.response.parts as unknown[]).push({});
        if (event.type === "step-finish") (event.record.calls as unknown[]).pop();
        if (event.type === "tool-decision" && event.call) anyEvent.call.args = { n: 999 };
        return;
      case "replaceParts":
        // Steering attempt: a call the model never made.
        if (event.type === "model-response") {
          event.response.parts = [
            ...event.response.parts,
            { type: "tool-call", id: `injected-${event.step}`, name: "a", args: '{"n":7}' },
          ];
        }
        return;
      case "mutateResult":
        if (event.type === "run-finish") {
          anyEvent.result.status = "completed";
          anyEvent.result.messages.pop();
        }
        return;
    }
  };
}

/** Plays a scenario against the real loop; never throws for the run's own failure. */
export async function play(s: Scenario): Promise<Observation> {
  const providerError = new ScenarioProviderError("the scenario's provider failed");
  const plan = new Map<string, CallSpec>();
  const runPhase = emptyObservation();
  let current = runPhase;
  let listenerErrors = 0;

  const behave = (id: string): unknown => {
    switch (plan.get(id)?.behaviour ?? "ok") {
      case "ok":
        return { id };
      case "undefined":
        return undefined;
      case "throw":
        throw new Error("tool failed");
      case "throwString":
        throw "tool failed (a string)";
      case "throwNullProto":
        throw Object.create(null);
      case "retry":
        throw new RetryError("again");
      case "unfit":
        return { big: 1n };
    }
  };
  const execute = (args: unknown, id: string) => {
    if (!s.hasExecuteTool) current.started.push(id);
    current.executed.push({ id, args: copy(args) });
    return behave(id);
  };
  const needsApprovalOf = (name: ToolName) => {
    const setting = s.tools[name].needsApproval;
    if (setting !== "fn") return setting;
    return (_args: unknown, ctx: { toolCallId: string }) => {
      const spec = plan.get(ctx.toolCallId);
      return spec ? answer(spec.needsApproval, boolValue) : false;
    };
  };
  const input = z.object({ n: z.number() });
  const tools: Record<ToolName, Tool<unknown>> = {
    a: tool({
      name: "a",
      input,
      maxRetries: s.tools.a.maxRetries,
      needsApproval: needsApprovalOf("a") as never,
      execute: (args, ctx) => execute(args, ctx.toolCallId),
    }),
    b: tool({
      name: "b",
      input: z.object({ n: z.number().optional() }),
      maxRetries: s.tools.b.maxRetries,
      needsApproval: needsApprovalOf("b") as never,
      execute: async (args, ctx) => execute(args, ctx.toolCallId),
    }),
    c: tool({
      name: "c",
      input,
      maxRetries: s.tools.c.maxRetries,
      needsApproval: needsApprovalOf("c") as never,
      sequential: true,
      execute: (args, ctx) => execute(args, ctx.toolCallId),
    }),
  };

  const provider = functionProvider(
    (_request, { step }) => {
      const spec = s.steps[step];
      if (spec?.providerError) throw providerError;
      if (!spec || spec.calls.length === 0) return { text: `answer ${step}` };
      return {
        toolCalls: spec.calls.map((call, index) => {
          const id = `s${step}c${index}`;
          plan.set(id, call);
          return { id, name: call.name, args: argsText(call.args) };
        }),
      };
    },
    { stream: s.providerStream, chunkSize: 5 },
  );

  const hooks = Array.from(
    { length: s.hookCount },
    (_, index) => (call: { toolCallId: string; args: unknown }) => {
      current.hookLog.push({ id: call.toolCallId, index, args: copy(call.args) });
      const spec = plan.get(call.toolCallId);
      return spec ? answer(spec.hooks[index]!, hookValue) : undefined;
    },
  );

  const policy: LoopPolicy<unknown> = {};
  if (s.hasDecide) {
    policy.decideToolCall = ({ call, needsApproval }) => {
      current.decideLog.push({ id: call.id, args: copy(call.args), needsApproval });
      const spec = plan.get(call.id);
      return (spec ? answer(spec.decision, decisionValue) : undefined) as never;
    };
  }
  if (s.hasEndsRun) {
    policy.endsRun = ({ call }) => {
      current.endsRunLog.push(call.id);
      current.callArgs.push({ id: call.id, where: "endsRun", args: copy(call.args) });
      const spec = plan.get(call.id);
      return (spec ? answer(spec.endsRun, boolValue) : false) as never;
    };
  }
  if (s.hasPrepareStep) {
    policy.prepareStep = ({ stepIndex, executed }) => {
      current.prepareLog.push({ stepIndex, executed: executed.slice() });
      const spec = s.steps[stepIndex];
      if (!spec) return undefined;
      return answer(spec.prepare, (kind) => prepareValue(kind, spec.subset, tools)) as never;
    };
  }
  if (s.hasExecuteTool) {
    policy.executeTool = (({
      call,
      args,
      tool: chosen,
      ctx,
    }: {
      call: { id: string; args: unknown };
      args: unknown;
      tool: Tool<unknown>;
      ctx: never;
    }) => {
      current.started.push(call.id);
      current.callArgs.push({ id: call.id, where: "executeTool", args: copy(call.args) });
      switch (plan.get(call.id)?.executeTool ?? "pass") {
        case "pass":
          return chosen.execute(args as never, ctx);
        case "passAsync":
          return (async () => chosen.execute(args as never, ctx))();
        case "throwBefore":
          throw new Error("executeTool failed");
        case "rejectBefore":
          return Promise.reject(new Error("executeTool rejected"));
        case "throwStringBefore":
          throw "executeTool failed (a string)";
        case "throwAfter":
          return (async () => {
            await chosen.execute(args as never, ctx);
            throw new Error("executeTool failed after the tool ran");
          })();
        case "replace":
          return Promise.resolve("replaced");
      }
    }) as never;
  }

  const store = s.store ? faultyStore(s.store, () => current.faults) : undefined;
  const loop = new AgentLoop({
    provider,
    tools: Object.values(tools),
    maxSteps: s.maxSteps,
    maxRetries: s.loopMaxRetries,
    maxParallelToolCalls: s.parallel,
    toolErrors: s.toolErrors,
    preToolCall: hooks as never,
    policy,
    repeatDenied: "ask",
    ...(store ? { store } : { trustState: true }),
    onEvent: (event) => {
      const record: PhaseObservation["events"][number] = { type: event.type };
      if ("toolCallId" in event) record.toolCallId = event.toolCallId;
      if (event.type === "tool-decision") {
        record.verdict = event.verdict;
        record.by = event.by;
      }
      if (event.type === "tool-result") record.isError = event.isError;
      current.events.push(record);
    },
    onListenerError: () => {
      listenerErrors++;
      if (s.listenerErrorThrows) throw new Error("onListenerError failed too");
    },
  });
  for (const kind of s.listeners) {
    for (const type of [
      "step-start",
      "model-response",
      "tool-call",
      "tool-decision",
      "tool-result",
      "step-finish",
      "run-finish",
    ] as const) {
      loop.on(type, listenerFor(kind) as never);
    }
  }

  const drive = async (
    start: () => Promise<RunResult>,
    stream: () => AsyncGenerator<LoopEvent>,
  ): Promise<Outcome> => {
    try {
      if (s.mode === "run") return { ok: true, result: await start() };
      let result: RunResult | undefined;
      for await (const event of stream()) if (event.type === "run-finish") result = event.result;
      if (!result) throw new Error("harness: the stream ended without a run-finish event");
      return { ok: true, result };
    } catch (error) {
      return { ok: false, error };
    }
  };

  runPhase.outcome = await drive(
    () => loop.run("go"),
    () => loop.stream("go"),
  );
  const observation: Observation = { run: runPhase, providerError, listenerErrors: 0 };
  const first = runPhase.outcome;
  if (s.resume && first.ok && first.result.status === "needs_approval") {
    const decisions = Object.fromEntries(
      (first.result.pending ?? []).map((p) => [
        p.toolCallId,
        plan.get(p.toolCallId)?.approve
          ? { approve: true as const }
          : { approve: false as const, reason: "a human said no" },
      ]),
    );
    const resumePhase = emptyObservation();
    current = resumePhase;
    const given = store ? first.result.state.runId : first.result.state;
    resumePhase.outcome = await drive(
      () => loop.resume(given, decisions),
      () => loop.resumeStream(given, decisions),
    );
    observation.resume = resumePhase;
  }
  observation.listenerErrors = listenerErrors;
  return observation;
}

// ---------------------------------------------------------------------------------------------
// Checks
// ---------------------------------------------------------------------------------------------

/**
 * DESIGN section 3: every tool call has exactly one result, in the tool message right after
 * its assistant message; only a paused run's last step lacks its results.
 */
export function expectTranscriptInvariant(messages: Message[], paused: boolean): void {
  messages.forEach((message, index) => {
    if (message.role !== "assistant") return;
    const ids = message.parts.flatMap((part) => (part.type === "tool-call" ? [part.id] : []));
    const next = messages[index + 1];
    if (ids.length === 0) {
      expect(next?.role, "a tool message follows an assistant message without calls").not.toBe(
        "tool",
      );
      return;
    }
    if (paused && index === messages.length - 1) return;
    expect(next?.role, `the results of ${ids.join(", ")}`).toBe("tool");
    if (next?.role === "tool") expect(next.results.map((r) => r.toolCallId)).toEqual(ids);
  });
  const toolMessages = messages.filter((m) => m.role === "tool").length;
  const withCalls = messages.filter(
    (m) => m.role === "assistant" && m.parts.some((p) => p.type === "tool-call"),
  ).length;
  expect(toolMessages, "tool messages").toBe(paused ? withCalls - 1 : withCalls);
}

const nameOf = (error: unknown) =>
  error instanceof Error ? `${error.name}: ${error.message}` : `a thrown ${typeof error}`;

/**
 * Whether the store faults served in a phase must end it with an error: a failed `release`
 * need not, and `get` answering `undefined` ("nothing stored") is an ordinary answer.
 */
const mustFail = (faults: PhaseObservation["faults"]) =>
  faults.some((f) => f.op !== "release" && !(f.op === "get" && f.kind === "refuse"));

/**
 * The phase ended as the oracle says: resolved with the predicted status (and pending calls,
 * and ending call), or rejected with one of the predicted error classes — nothing else. With
 * store faults served, a `StoreError` (or, on resume, a `ResumeError`) may end it instead.
 */
export function expectOutcome(
  expected: PhaseExpectation,
  observed: PhaseObservation,
  providerError: ScenarioProviderError,
  resumed: boolean,
): void {
  const { outcome } = observed;
  const faulted = observed.faults.length > 0;
  if (!outcome.ok) {
    const { error } = outcome;
    const classes: ErrorClass[] =
      expected.outcome.kind === "reject" ? expected.outcome.classes.slice() : [];
    if (faulted) classes.push(StoreError, ...(resumed ? [ResumeError] : []));
    if (expected.outcome.kind === "reject" && expected.outcome.provider && error === providerError)
      return;
    if (!classes.some((type) => error instanceof type)) {
      throw new Error(
        `the run rejected with ${nameOf(error)}; the oracle expects ${
          expected.outcome.kind === "resolve"
            ? `status "${expected.outcome.status}"`
            : expected.outcome.classes.map((c) => c.name).join(" or ")
        }${faulted ? " (or a StoreError: store faults were served)" : ""}`,
        { cause: error },
      );
    }
    expect(error, "every rejection is a TollgateError").toBeInstanceOf(TollgateError);
    return;
  }
  if (faulted && mustFail(observed.faults)) {
    throw new Error(
      `store faults ${JSON.stringify(observed.faults)} were served, yet the run resolved with "${outcome.result.status}"`,
    );
  }
  if (expected.outcome.kind === "reject") {
    throw new Error(
      `the run resolved with status "${outcome.result.status}"; the oracle expects a rejection with ${expected.outcome.classes
        .map((c) => c.name)
        .join(" or ")}`,
    );
  }
  const { result } = outcome;
  expect(result.status, "status").toBe(expected.outcome.status);
  expect(
    (result.pending ?? []).map((p) => p.toolCallId),
    "pending calls",
  ).toEqual(expected.outcome.pending);
  if (expected.outcome.endedBy !== undefined) {
    expect(result.endedBy?.id, "endedBy").toBe(expected.outcome.endedBy);
  }
  if (expected.outcome.status === "stopped") {
    expect(result.stopReason, "stopReason").toBe(expected.outcome.stopReason);
  }
}

/** The transcript invariant on whatever the phase ended with: `result.messages` or `error.messages`. */
export function expectPhaseTranscript(
  observed: PhaseObservation,
  resumed = false,
  waiveStoreMessages = false,
): void {
  const { outcome } = observed;
  if (outcome.ok) {
    const paused = outcome.result.status === "needs_approval";
    expectTranscriptInvariant(outcome.result.messages, paused);
    expectTranscriptInvariant(outcome.result.state.messages, paused);
    return;
  }
  const { error } = outcome;
  if (!(error instanceof TollgateError) || error instanceof ResumeError) return;
  // A resume refused while it loads and claims its state ran nothing, like a ResumeError.
  const before = ["acquire", "get", "claim"];
  if (resumed && error instanceof StoreError && before.includes(error.operation)) return;
  if (waiveStoreMessages && error instanceof StoreError && !error.messages) return;
  expect(
    Array.isArray(error.messages),
    `${nameOf(error)} ends the run, so it carries the transcript (DESIGN section 8)`,
  ).toBe(true);
  expectTranscriptInvariant(error.messages!, false);
}

/** Checks `actual` is `expected` (exactly), or a prefix of it when store faults cut the phase short. */
function expectLog<T>(actual: T[], expected: T[], faulted: boolean, what: string): void {
  if (faulted) expect(actual, what).toEqual(expected.slice(0, actual.length));
  else expect(actual, what).toEqual(expected);
}

/**
 * Exactly the calls the oracle says execute do, each once, with the oracle's args; in a step
 * whose phase two fails, the calls that started are a non-empty prefix of the allowed calls
 * that explains the failure.
 */
export function expectExecutions(expected: PhaseExpectation, observed: PhaseObservation): void {
  const ids = observed.executed.map((e) => e.id);
  expect(new Set(ids).size, `no call runs twice: ${ids.join(", ")}`).toBe(ids.length);
  const faulted = observed.faults.length > 0;
  for (const { id, args } of observed.executed) {
    const allowed = expected.executed.has(id) || expected.mayRunArgs.has(id);
    expect(allowed, `call ${id} ran, but the oracle gives it no ALLOW`).toBe(true);
    expect(args, `the args call ${id} ran with`).toEqual(
      expected.executed.get(id) ?? expected.mayRunArgs.get(id),
    );
  }
  for (const { id, where, args } of observed.callArgs) {
    expect(
      expected.allowedArgs.has(id),
      `${where} was asked about ${id}, which the oracle does not allow`,
    ).toBe(true);
    expect(args, `call.args of ${id} as ${where} saw them`).toEqual(expected.allowedArgs.get(id));
  }
  if (faulted) return;
  const certain = [...expected.executed.keys()];
  expect(ids.filter((id) => !expected.mayRunArgs.has(id)).sort(), "executed calls").toEqual(
    certain.sort(),
  );
  const { failing } = expected;
  if (!failing) return;
  const ranks = new Map(failing.allowed.map((call, index) => [call.id, index]));
  const started = observed.started.filter((id) => ranks.has(id));
  expect(new Set(started).size, "no allowed call starts twice").toBe(started.length);
  const k = started.length;
  expect(
    started.map((id) => ranks.get(id)!).sort((x, y) => x - y),
    "the calls that started in the failing step are the first allowed ones",
  ).toEqual([...Array(k).keys()]);
  expect(k, "the failing step started at least one call").toBeGreaterThan(0);
  const within = failing.classesWithin(k);
  const { outcome } = observed;
  const why = outcome.ok ? `status "${outcome.result.status}"` : nameOf(outcome.error);
  expect(within.length, `the ${k} calls that started explain the failure (${why})`).toBeGreaterThan(
    0,
  );
  if (!outcome.ok) {
    expect(
      within.some((type) => outcome.error instanceof type),
      `${nameOf(outcome.error)} is explained by the ${k} calls that started`,
    ).toBe(true);
  }
  const ran = new Set(ids);
  for (const call of failing.allowed.slice(0, k)) {
    expect(ran.has(call.id), `call ${call.id} started, so its tool ran`).toBe(call.runsTool);
  }
}

/** What user callbacks saw: hooks (with the args as earlier hooks left them), policy, prepareStep, endsRun. */
export function expectCallbacks(expected: PhaseExpectation, observed: PhaseObservation): void {
  const faulted = observed.faults.length > 0;
  expectLog(observed.hookLog, expected.hookLog, faulted, "pre-call hooks called");
  expectLog(observed.decideLog, expected.decideLog, faulted, "decideToolCall called");
  expectLog(observed.prepareLog, expected.prepareLog, faulted, "prepareStep called");
  expectLog(observed.endsRunLog, expected.endsRunLog, faulted, "endsRun called");
}

/** A `tool-error` comes at most once per call, just before that call's failed `tool-result`. */
function expectToolErrors(observed: PhaseObservation): void {
  const { events } = observed;
  events.forEach((event, index) => {
    if (event.type !== "tool-error") return;
    const id = event.toolCallId;
    const next = events.slice(index + 1).find((later) => later.toolCallId === id);
    expect(next, `what follows the tool-error of call ${id}`).toMatchObject({
      type: "tool-result",
      isError: true,
    });
  });
}

/**
 * DESIGN sections 7 and 10: per call at most one `tool-call`, `tool-decision` and `tool-result`
 * per phase, in that order; exactly one each on a resolved phase (none for a pending call's
 * result); each decision is the oracle's verdict, by whom the oracle says.
 */
export function expectEvents(expected: PhaseExpectation, observed: PhaseObservation): void {
  expectToolErrors(observed);
  const perCall = new Map<string, string[]>();
  for (const event of observed.events) {
    if (event.toolCallId === undefined || event.type === "tool-error") continue;
    perCall.set(event.toolCallId, [...(perCall.get(event.toolCallId) ?? []), event.type]);
  }
  const byId = new Map(expected.calls.map((call) => [call.id, call]));
  const faulted = observed.faults.length > 0;
  for (const [id, types] of perCall) {
    const order = ["tool-call", "tool-decision", "tool-result"].filter((t) => types.includes(t));
    expect(types, `events of call ${id}`).toEqual(order);
    if (!faulted)
      expect(byId.has(id) || types.join() === "tool-call", `call ${id} was gated`).toBe(true);
  }
  for (const event of observed.events) {
    if (event.type !== "tool-decision") continue;
    const call = byId.get(event.toolCallId!);
    if (!call) continue;
    expect(event.verdict, `verdict of ${call.id}`).toBe(call.verdict);
    if (call.by !== undefined) expect(event.by, `who decided ${call.id}`).toBe(call.by);
  }
  const { outcome } = observed;
  if (!outcome.ok || faulted) return;
  const pending = new Set((outcome.result.pending ?? []).map((p) => p.toolCallId));
  for (const call of expected.calls) {
    const types = perCall.get(call.id) ?? [];
    const want = [
      ...(call.toolCallEvent ? ["tool-call"] : []),
      "tool-decision",
      ...(pending.has(call.id) ? [] : ["tool-result"]),
    ];
    expect(types, `events of call ${call.id}`).toEqual(want);
  }
}

/** The results in the transcript of a resolved phase: error or not, and the output of the good ones. */
export function expectResults(expected: PhaseExpectation, observed: PhaseObservation): void {
  const { outcome } = observed;
  if (!outcome.ok || observed.faults.length > 0) return;
  // The step records hold every result, also those of a paused step (its messages end with
  // the assistant message); the transcript holds the same results once the step is written.
  const records = new Map(
    outcome.result.steps.flatMap((step) => step.calls).map((record) => [record.toolCallId, record]),
  );
  const written = new Map(
    outcome.result.messages
      .flatMap((m) => (m.role === "tool" ? m.results : []))
      .map((r) => [r.toolCallId, r]),
  );
  for (const call of expected.calls) {
    const result = records.get(call.id)?.result;
    if (!call.result) {
      expect(result, `pending call ${call.id} has no result yet`).toBeUndefined();
      continue;
    }
    const inTranscript = written.get(call.id);
    if (inTranscript) expect(inTranscript, `the transcript's result of ${call.id}`).toEqual(result);
    expect(result?.isError, `isError of ${call.id} (${call.verdict})`).toBe(call.result.isError);
    if (!call.result.isError)
      expect(result?.output, `output of ${call.id}`).toEqual(call.result.output);
  }
  for (const step of outcome.result.steps) {
    for (const record of step.calls) {
      const call = byIdOf(expected, record.toolCallId);
      if (call?.args !== undefined) {
        expect(record.args, `recorded args of ${record.toolCallId}`).toEqual(call.args);
      }
    }
  }
}

function byIdOf(expected: PhaseExpectation, id: string): ExpectedCall | undefined {
  return expected.calls.find((call) => call.id === id);
}

/**
 * Known bugs a check can be told to let pass, so that the rest of the contract stays checked
 * while they are open. `storeErrorWithoutMessages`: a `StoreError` from `acquire`, the final
 * `put` or `release` carries no transcript.
 */
export interface KnownBugs {
  storeErrorWithoutMessages?: boolean;
}

/** Every check of one phase. */
export function expectPhase(
  expected: PhaseExpectation,
  observed: PhaseObservation,
  providerError: ScenarioProviderError,
  resumed: boolean,
  known: KnownBugs = {},
): void {
  expectOutcome(expected, observed, providerError, resumed);
  expectPhaseTranscript(observed, resumed, known.storeErrorWithoutMessages);
  expectExecutions(expected, observed);
  expectCallbacks(expected, observed);
  expectEvents(expected, observed);
  expectResults(expected, observed);
}

/** Every check of a played scenario, run and resume. */
export function expectScenario(s: Scenario, observed: Observation, known: KnownBugs = {}): void {
  const expected = predict(s);
  expectPhase(expected.run, observed.run, observed.providerError, false, known);
  const faulted = observed.run.faults.length > 0;
  if (faulted) return; // the oracle's resume assumes the run went as predicted
  if (expected.resume) {
    expect(observed.resume, "the paused run was resumed").toBeDefined();
    expectPhase(expected.resume, observed.resume!, observed.providerError, true, known);
  }
  const all = [...observed.run.executed, ...(observed.resume?.executed ?? [])].map((e) => e.id);
  expect(new Set(all).size, "no call runs twice across run and resume").toBe(all.length);
}
