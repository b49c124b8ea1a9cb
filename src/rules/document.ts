/**
 * The rules document: allow / ask / deny rules over tool names, MCP annotations and args, as
 * JSON data (a parsed YAML file is the same data). `rules.schema.json` (in the package) is its
 * JSON Schema; `rulesPolicy` checks it again, and more, at load.
 */

/** What a rule does to a call it matches. The strictest matching rule decides: deny > ask > allow. */
export type RuleEffect = "allow" | "ask" | "deny";

/** The MCP hints a rule can match on (read from `tool.annotations`, with the MCP spec's defaults). */
export type RuleHint = "readOnlyHint" | "destructiveHint" | "idempotentHint" | "openWorldHint";

/** A JSON value, as the document holds it. */
export type RuleValue =
  | null
  | boolean
  | number
  | string
  | RuleValue[]
  | { [key: string]: RuleValue };

/**
 * Tests on one arg. Every test given must hold (and). An arg the call lacks, or whose value a
 * test cannot judge (a `glob` on a number, `gt` on a string), fails closed: the test holds for
 * a deny or ask rule and fails for an allow rule. `exists` always judges.
 */
export interface ArgMatcher {
  /** Deep equality with this JSON value. */
  equals?: RuleValue;
  /** Deep equality with one of these values (at least one). */
  in?: RuleValue[];
  /** A string matching this glob: `*` (within a segment), `**` (across `/`), `?` (one character). */
  glob?: string;
  /** A string starting with this text. */
  prefix?: string;
  /** A number greater than this. */
  gt?: number;
  /** A number greater than or equal to this. */
  gte?: number;
  /** A number less than this. */
  lt?: number;
  /** A number less than or equal to this. */
  lte?: number;
  /** true: the arg is present; false: the arg is absent. */
  exists?: boolean;
}

/** One rule. Every matcher given must hold for the rule to match; a rule with none matches every call. */
export interface Rule {
  /** Unique in the document; named by `explain` and by every load error. */
  id: string;
  effect: RuleEffect;
  /** A tool name or a glob over names (`*`, `?`), or a list of them (any one). */
  tool?: string | string[];
  /** Equality on the tool's MCP hints (a hint the tool does not give takes the MCP default). */
  annotations?: Partial<Record<RuleHint, boolean>>;
  /** Tests on args: a top-level key (`"path"`), or a JSON pointer (`"/target/path"`). */
  args?: Record<string, ArgMatcher>;
  /** Allow rules only: the rule matches only while the tool executed fewer than `maxPerRun` times in this run. */
  history?: { maxPerRun: number };
  /** Why: the decision's reason (default: the rule's id and effect). */
  reason?: string;
  /** For the reviewer; not used. */
  description?: string;
}

/** A rules document, version 1. */
export interface RulesDocument {
  /** Where an editor finds the schema (`./node_modules/tollgate/rules.schema.json`); not used. */
  $schema?: string;
  version: 1;
  /** The effect when no rule matches (default "deny"; "allow" only when written here). */
  default?: RuleEffect;
  rules: Rule[];
}
