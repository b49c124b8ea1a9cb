import type { Message, ModelRequest, Provider, ToolResult, ToolSpec } from "tollgate";
import { jsonSchema, TollgateError } from "tollgate";
import { checkFakeOptions, fakeProvider } from "./fake-provider.js";
import { SampleProblem, sampleSchema } from "./schema-sample.js";
import { seededRandom } from "./seeded-random.js";
import type { FakeProviderOptions, ScriptedToolCall, TurnReply } from "./turn.js";

/** Options of `autoProvider`. */
export interface AutoProviderOptions extends FakeProviderOptions {
  /** Seeds every generated value: the same seed gives the same args and answers (default 1). */
  seed?: number | undefined;
  /** Call only these tools (each must be offered), in this order; default: every offered tool. */
  calls?: readonly string[] | undefined;
  /**
   * The name of the final-answer tool of structured output's "tool" mode (the loop's
   * `output.name`; default "final_answer"): never called with the others, but answered with.
   */
  finalAnswerTool?: string | undefined;
}

/** A fake model that calls the offered tools with generated args, then sums up the results. */
export interface AutoProvider extends Provider {
  /** Every request the loop sent, in order. */
  readonly requests: ModelRequest[];
}

/**
 * A model that needs no script: in a run's first turn it calls every offered tool (or those
 * named in `calls`) with args generated from the tool's JSON Schema — valid by construction
 * (each value is checked against the schema before it is sent) and the same for the same
 * `seed`. Once the results are back it answers with a summary of them (each tool, ok or
 * error, a short output), or, when the run asks for structured output, with a value generated
 * from the output schema (JSON text in "native" mode, a call to the final-answer tool in
 * "tool" mode). A schema it cannot write a value for is a `TollgateError` naming the tool and
 * the path: it never hands the loop args it knows may be invalid.
 *
 * @example
 * const result = await new AgentLoop({ provider: autoProvider(), tools }).run("go");
 */
export function autoProvider(options: AutoProviderOptions = {}): AutoProvider {
  checkFakeOptions("autoProvider", options, ["seed", "calls", "finalAnswerTool"]);
  const { seed = 1, calls, finalAnswerTool = "final_answer", ...fake } = options;
  if (!Number.isSafeInteger(seed)) throw new TypeError("autoProvider: seed must be a whole number");
  if (calls !== undefined && (!Array.isArray(calls) || calls.some((c) => typeof c !== "string"))) {
    throw new TypeError("autoProvider: calls must be a list of tool names");
  }
  const checkers = new Map<string, (value: unknown) => unknown>();
  const generate = (schema: Record<string, unknown>, what: string): unknown =>
    generated(schema, what, seed, checkers);
  return fakeProvider(
    fake,
    { name: "auto", model: "auto" },
    async (request) => {
      const results = resultsSinceUser(request.messages);
      if (results === undefined) {
        const chosen = chosenTools(request.tools, calls, finalAnswerTool);
        if (chosen.length > 0) {
          const toolCalls: ScriptedToolCall[] = chosen.map((spec) => ({
            name: spec.name,
            args: generate(spec.inputSchema, `tool "${spec.name}"`),
          }));
          return { toolCalls } satisfies TurnReply;
        }
      }
      return answer(request, results ?? [], finalAnswerTool, generate);
    },
    false,
  );
}

/** The tools to call in the first turn: those named in `calls` (each must be offered), else all but the final-answer tool. */
function chosenTools(
  tools: readonly ToolSpec[],
  calls: readonly string[] | undefined,
  finalAnswerTool: string,
): ToolSpec[] {
  if (calls === undefined) return tools.filter((spec) => spec.name !== finalAnswerTool);
  return calls.map((name) => {
    const spec = tools.find((offered) => offered.name === name);
    if (!spec) {
      const offered = tools.map((t) => t.name).join(", ") || "none";
      throw new TollgateError(
        `autoProvider: calls names the tool "${name}", which this request does not offer (offered: ${offered})`,
      );
    }
    return spec;
  });
}

/** The final turn: a generated structured answer when one is asked for, else a summary of the results. */
function answer(
  request: ModelRequest,
  results: readonly ToolResult[],
  finalAnswerTool: string,
  generate: (schema: Record<string, unknown>, what: string) => unknown,
): TurnReply {
  if (request.responseFormat !== undefined) {
    return { text: JSON.stringify(generate(request.responseFormat.schema, "the output schema")) };
  }
  const finalTool = request.tools.find((spec) => spec.name === finalAnswerTool);
  if (finalTool !== undefined) {
    return {
      toolCalls: [
        { name: finalTool.name, args: generate(finalTool.inputSchema, `tool "${finalTool.name}"`) },
      ],
    };
  }
  return { text: summary(results) };
}

/** The tool results since the last user message, or undefined when no tool has answered since. */
function resultsSinceUser(messages: readonly Message[]): ToolResult[] | undefined {
  let results: ToolResult[] | undefined;
  for (const message of messages) {
    if (message.role === "user") results = undefined;
    else if (message.role === "tool") results = [...(results ?? []), ...message.results];
  }
  return results;
}

/** One line per result: `- name: ok|error — output`, the output cut to 80 characters. */
function summary(results: readonly ToolResult[]): string {
  if (results.length === 0) return "No tools were called.";
  const lines = results.map((result) => {
    const text =
      typeof result.output === "string" ? result.output : (JSON.stringify(result.output) ?? "");
    const short = text.length > 80 ? `${text.slice(0, 79)}…` : text;
    return `- ${result.toolName}: ${result.isError ? "error" : "ok"} — ${short}`;
  });
  return `Called ${results.length} tool(s):\n${lines.join("\n")}`;
}

/**
 * A value for the schema, seeded by the seed and what it is for (so each tool's args do not
 * depend on the others), checked by the core's own JSON Schema validator; a few fresh tries
 * when a combination of keywords (an overlapping `oneOf`, say) rules the first value out.
 */
function generated(
  schema: Record<string, unknown>,
  what: string,
  seed: number,
  checkers: Map<string, (value: unknown) => unknown>,
): unknown {
  const random = seededRandom(seed, what);
  const check = checkerFor(schema, what, checkers);
  let problem = "";
  for (let attempt = 0; attempt < 10; attempt++) {
    let value: unknown;
    try {
      value = sampleSchema(schema, random);
    } catch (error) {
      if (!(error instanceof SampleProblem)) throw error;
      throw new TollgateError(
        `autoProvider: cannot generate a value for ${what} ${error.message}; leave it out with \`calls\`, or script this call with scriptedProvider`,
      );
    }
    const issues = check(value);
    if (issues === undefined) return value;
    problem = String(issues);
  }
  throw new TollgateError(
    `autoProvider: every value generated for ${what} failed its schema (${problem}); leave it out with \`calls\`, or script this call with scriptedProvider`,
  );
}

function checkerFor(
  schema: Record<string, unknown>,
  what: string,
  checkers: Map<string, (value: unknown) => unknown>,
): (value: unknown) => unknown {
  const key = `${what}\u0000${JSON.stringify(schema)}`;
  let check = checkers.get(key);
  if (check === undefined) {
    let validate: ReturnType<typeof jsonSchema>["~standard"]["validate"];
    try {
      validate = jsonSchema(schema)["~standard"].validate;
    } catch (error) {
      throw new TollgateError(
        `autoProvider: the schema of ${what} cannot be checked: ${(error as Error).message}`,
        { cause: error },
      );
    }
    check = (value) => {
      const result = validate(value) as {
        issues?: ReadonlyArray<{ message: string; path?: unknown }>;
      };
      if (!result.issues) return undefined;
      return result.issues
        .map((issue) => `${JSON.stringify(issue.path ?? [])}: ${issue.message}`)
        .join("; ");
    };
    checkers.set(key, check);
  }
  return check;
}
