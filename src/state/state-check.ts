import { Validator } from "@cfworker/json-schema";
// From the core's entry (core.ts), not state-schema.ts: so this lazy module reaches the whole core.
import { RUN_STATE_SCHEMA } from "../core.js";
import { MESSAGES_SCHEMA } from "./state-schema.js";

let validator: Validator | undefined;
let messagesValidator: Validator | undefined;

/**
 * Checks a list of messages against the state's message schema (as a state's `messages` are
 * checked): `undefined` when it fits, else the first problem ("[2].parts[0]: ...").
 */
export function messagesProblem(messages: unknown): string | undefined {
  messagesValidator ??= new Validator(MESSAGES_SCHEMA as never, "2020-12", false);
  const { valid, errors } = messagesValidator.validate(messages);
  return valid ? undefined : worstProblem(errors);
}

/**
 * Checks a value against `RUN_STATE_SCHEMA`: `undefined` when it fits, else the first
 * problem with where it is ("steps[0]: missing calls").
 */
export function stateProblem(state: unknown): string | undefined {
  validator ??= new Validator(RUN_STATE_SCHEMA as never, "2020-12", false);
  const { valid, errors } = validator.validate(state);
  return valid ? undefined : worstProblem(errors);
}

function worstProblem(errors: ReturnType<Validator["validate"]>["errors"]): string {
  // cfworker reports each failing level; the deepest report that is not a summary of the
  // levels below it says what is actually wrong.
  const rank = (error: (typeof errors)[number]) =>
    error.instanceLocation.length * 2 + (SUMMARIES.has(error.keyword) ? 0 : 1);
  const worst = errors.reduce((best, error) => (rank(error) > rank(best) ? error : best));
  return `${pathOf(worst.instanceLocation)}: ${worst.error}`;
}

/** Keywords whose error only says that something below them failed. */
const SUMMARIES = new Set(["properties", "items", "allOf", "anyOf", "if", "then", "else"]);

/** "#/steps/0/calls" → "steps[0].calls" ("the state" for the root). */
function pathOf(location: string): string {
  const segments = location.replace(/^#\/?/, "").split("/").filter(Boolean);
  if (segments.length === 0) return "the state";
  let path = "";
  for (const raw of segments) {
    const segment = decodeURIComponent(raw).replaceAll("~1", "/").replaceAll("~0", "~");
    path += /^\d+$/.test(segment) ? `[${segment}]` : path ? `.${segment}` : segment;
  }
  return path;
}
