/**
 * `tollgate/rules`: a policy as reviewable data. A JSON (or parsed YAML) document of allow /
 * ask / deny rules over tool names, MCP annotations and args; the strictest matching rule
 * wins; `explain(call)` names the rule that decided. `rules.schema.json` (in the package) is
 * the document's JSON Schema, for editors.
 */
export type {
  ArgMatcher,
  Rule,
  RuleEffect,
  RuleHint,
  RulesDocument,
  RuleValue,
} from "./document.js";
export type { ExplainCall, ExplainContext, Explanation, RulesPolicy } from "./policy.js";
export { rulesPolicy } from "./policy.js";
