import { formatIssues } from "../tools/schema-issues.js";
import type { RunState } from "../types/run-state.js";
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
 * model often writes a line such as "Sure:" before it); else the text as it is. Read in one
 * pass: as regular expressions, a fence followed by thousands of blank lines took minutes.
 */
export function unfenced(text: string): string {
  const whole = wholeFence(text);
  if (whole !== undefined) return whole;
  const blocks = fencedBlocks(text, 2);
  return blocks.length === 1 ? blocks[0]! : text;
}

/** Whether `char` is white space as `\s` reads it (tested by code first: it is read per character). */
function isSpace(char: string | undefined): boolean {
  if (char === undefined) return false;
  const code = char.charCodeAt(0);
  if (code < 128) return code === 32 || (code >= 9 && code <= 13);
  return /\s/.test(char);
}
const isLetter = (code: number) => (code >= 65 && code <= 90) || (code >= 97 && code <= 122);

/**
 * The body of a text that is one fence (spaces around it): "```", a language's letters, space
 * ending in a line break, the body, space, "```". The body starts after the last line break of
 * that first space and leaves out the space before the closing fence.
 */
function wholeFence(text: string): string | undefined {
  let at = text.length - text.trimStart().length;
  if (!text.startsWith("```", at)) return undefined;
  for (at += 3; isLetter(text.charCodeAt(at)); at++);
  let body = -1;
  for (; isSpace(text[at]); at++) if (text[at] === "\n") body = at + 1;
  const close = text.trimEnd().length - 3;
  if (body < 0 || close < body || !text.startsWith("```", close)) return undefined;
  let end = close;
  while (end > body && isSpace(text[end - 1])) end--;
  return text.slice(body, end);
}

/**
 * The bodies of the text's fenced blocks, the first `most` of them: "```", a language's letters,
 * spaces or tabs, a line break, the body up to the next "```" (without a line break and spaces
 * or tabs right before it).
 */
function fencedBlocks(text: string, most: number): string[] {
  const blocks: string[] = [];
  for (let open = text.indexOf("```"); open >= 0 && blocks.length < most; ) {
    let at = open + 3;
    while (isLetter(text.charCodeAt(at))) at++;
    while (text[at] === " " || text[at] === "\t") at++;
    const close = text[at] === "\n" ? text.indexOf("```", at + 1) : -1;
    if (close < 0) {
      open = text.indexOf("```", open + 1);
      continue;
    }
    let end = close;
    while (end > at + 1 && (text[end - 1] === " " || text[end - 1] === "\t")) end--;
    if (end > at + 1 && text[end - 1] === "\n") end--;
    blocks.push(text.slice(at + 1, end));
    open = text.indexOf("```", close + 3);
  }
  return blocks;
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
