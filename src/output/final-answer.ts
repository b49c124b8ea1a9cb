import type { RunState } from "../state/run-state.js";
import { formatIssues } from "../tools/schema-issues.js";
import { andThen, type MaybePromise } from "../util/maybe-promise.js";
import type { ResolvedOutput } from "./output-option.js";

/** A final answer read: the output, or what is wrong with it (paths included), for the model. */
export type FinalAnswer = { ok: true; output: unknown } | { ok: false; problem: string };

/**
 * Reads a final answer given as text ("native" and "prompted" modes): the JSON in it (a
 * ```json fence around it is tolerated), validated against the output schema. In "tool"
 * mode a text answer is not a final answer: the model is told to call the final-answer tool.
 */
export function readFinalText(output: ResolvedOutput, text: string): MaybePromise<FinalAnswer> {
  if (output.mode === "tool") {
    return {
      ok: false,
      problem: `you answered with text; give your final answer by calling the tool "${output.name}" with the answer as its args`,
    };
  }
  let value: unknown;
  try {
    value = JSON.parse(unfenced(text));
  } catch (error) {
    return {
      ok: false,
      problem: `your answer is not JSON (${(error as Error).message}); answer with one JSON value that matches the schema, and nothing else`,
    };
  }
  return andThen(output.validate(value) as MaybePromise<ValidationLike>, (result) =>
    result.issues
      ? {
          ok: false as const,
          problem: `your answer does not match the schema: ${formatIssues(result.issues)}; answer again with JSON that matches it`,
        }
      : { ok: true as const, output: result.value },
  );
}

type ValidationLike =
  | { value: unknown; issues?: undefined }
  | {
      issues: ReadonlyArray<{
        message: string;
        path?: ReadonlyArray<PropertyKey | { key: PropertyKey }>;
      }>;
    };

/**
 * The text inside a ```json (or ```) fence: when the answer is one, or holds exactly one (a
 * model often writes a line such as "Sure:" before it); else the text as it is.
 */
export function unfenced(text: string): string {
  const whole = /^\s*```[a-zA-Z]*\s*\n([\s\S]*?)\n?\s*```\s*$/.exec(text);
  if (whole) return whole[1]!;
  const blocks = [...text.matchAll(/```[a-zA-Z]*[ \t]*\n([\s\S]*?)\n?[ \t]*```/g)];
  return blocks.length === 1 ? blocks[0]![1]! : text;
}

/** The system prompt of "prompted" mode: the run's instructions, then the schema to answer in. */
export function promptedInstructions(
  instructions: string | undefined,
  output: ResolvedOutput,
): string {
  const ask = `Give your final answer as one JSON value that matches this JSON Schema, and nothing else (no prose, no code fence):\n${JSON.stringify(output.jsonSchema)}`;
  return instructions ? `${instructions}\n\n${ask}` : ask;
}

/**
 * Checks, before a resume claims its state, that a final answer the paused step already took
 * ("tool" mode) fits the `output` the resumed run has: a run resumed with another schema (a
 * deploy in between, say) must not complete with an answer its type does not describe.
 * Returns the problem, if any.
 */
export async function storedAnswerProblem(
  state: RunState,
  output: ResolvedOutput | undefined,
): Promise<string | undefined> {
  const name = output?.tool?.name;
  if (!output || name === undefined) return undefined;
  const open = state.steps[state.steps.length - 1];
  const answer = open?.calls.find(
    (call) => call.toolName === name && call.verdict === "allow" && call.result?.isError === false,
  );
  if (!answer) return undefined;
  const checked = (await output.validate(answer.args)) as ValidationLike;
  return checked.issues ? formatIssues(checked.issues) : undefined;
}
