// From the core's entry (core.ts), not errors.ts: so this lazy module reaches the whole core.
import { DuplicateToolError, PolicyError, UnknownToolError } from "../core.js";
import { Toolset } from "../tools/toolset.js";
import type { Message } from "../types/messages.js";
import type { ModelRequest } from "../types/provider.js";
import type { StepRecord } from "../types/step-record.js";
import type { Tool } from "../types/tool.js";
import { andThen, type MaybePromise } from "../util/maybe-promise.js";
import { callPolicy, shortForm } from "../util/policy-call.js";
import { isPlainObject } from "../util/values.js";
import { loadMessageSchema, messageSchemaReady } from "./message-schema.js";
import { everyTool, type ToolsOfStep } from "./prepare-step.js";
import type { RunContext } from "./run-context.js";
import { readSteering, STEERING_KEYS, type StepSteering } from "./step-steering.js";

/**
 * Asks `prepareStep` (when there is one) which tools this step shows and which may run, and
 * what else it changes for the step. An answer of the wrong shape is a `PolicyError`; a name
 * not in the toolset an `UnknownToolError`.
 */
export function preparedStep<Deps>(run: RunContext<Deps>): MaybePromise<ToolsOfStep<Deps>> {
  const { tools, policy } = run.config.options;
  const { prepareStep } = policy;
  if (!prepareStep) return everyTool(run);
  // Its answer may hold messages, checked against the state's schema, which loads first.
  if (!messageSchemaReady()) return afterMessageSchema(run);
  const prepared = callPolicy(
    "prepareStep",
    undefined,
    () => prepareStep.call(policy, stepArgs(run)),
    readPrepared<Deps>,
  );
  return andThen(prepared, (answer) => {
    run.abort.throwIfAborted();
    if (answer === undefined) return everyTool(run);
    const offered =
      answer.tools === undefined && answer.callable === undefined && answer.toolChoice === undefined
        ? { ...everyTool(run) }
        : toolsOf(tools, { ...answer, tools: answer.tools ?? [...tools] }, run.steps.length);
    if (answer.steering) offered.steering = answer.steering;
    return offered;
  });
}

/** `preparedStep(run)` once the state's message schema has loaded (the first time only). */
function afterMessageSchema<Deps>(run: RunContext<Deps>): Promise<ToolsOfStep<Deps>> {
  return loadMessageSchema().then(() => {
    run.abort.throwIfAborted(); // no user code is asked after the run was aborted
    return preparedStep(run);
  });
}

/**
 * What `prepareStep` gets; the run's messages and steps are copies, made only when it reads
 * them (getters on this object: a spread would call them, and copy the transcript every step).
 */
function stepArgs<Deps>(run: RunContext<Deps>) {
  // Records and messages are never changed once appended: the lists as they are now, copied
  // deeply only when read.
  const messagesNow = run.messages.slice();
  const stepsNow = run.steps.slice();
  let messages: Message[] | undefined;
  let steps: StepRecord[] | undefined;
  return {
    stepIndex: run.steps.length,
    executed: run.executed.slice(),
    tools: run.config.options.tools,
    get messages() {
      messages ??= structuredClone(messagesNow);
      return messages;
    },
    get steps() {
      steps ??= structuredClone(stepsNow);
      return steps;
    },
  };
}

const ANSWER =
  "return tools, tool names, a Toolset, { tools?, callable?, toolChoice?, instructions?, settings?, provider?, messages? } or undefined";

const STEP_KEYS: readonly string[] = ["tools", "callable", "toolChoice", ...STEERING_KEYS];

/** `prepareStep`'s answer, read: the step's tools (absent: every tool) and its steering. */
interface PreparedAnswer<Deps> {
  tools?: readonly (Tool<Deps> | string)[] | undefined;
  callable?: string[] | undefined;
  toolChoice?: ModelRequest["toolChoice"] | undefined;
  steering?: StepSteering | undefined;
}

/** Reads `prepareStep`'s answer into `{ tools?, callable?, toolChoice?, steering? }` (`undefined`: every tool). */
function readPrepared<Deps>(
  answer: unknown,
): { ok: true; value: PreparedAnswer<Deps> | undefined } | { ok: false; problem: string } {
  if (answer === undefined) return { ok: true, value: undefined };
  if (answer instanceof Toolset) return { ok: true, value: { tools: [...answer] } };
  const entries = Array.isArray(answer) ? answer : isPlainObject(answer) ? answer.tools : undefined;
  const listed = Array.isArray(entries) && entries.every(isToolEntry);
  if (!listed && !(isPlainObject(answer) && entries === undefined)) {
    return { ok: false, problem: `returned ${shortForm(answer)}; ${ANSWER}` };
  }
  if (Array.isArray(answer)) return { ok: true, value: { tools: answer } };
  const step = answer as Record<string, unknown>;
  const unknownKey = Object.keys(step).find((key) => !STEP_KEYS.includes(key));
  if (unknownKey !== undefined) {
    return { ok: false, problem: `returned the unknown key \`${unknownKey}\`; ${ANSWER}` };
  }
  const { callable, toolChoice } = step;
  if (
    callable !== undefined &&
    !(Array.isArray(callable) && callable.every((n) => typeof n === "string"))
  ) {
    return { ok: false, problem: "returned `callable` that is not an array of tool names" };
  }
  if (!isToolChoice(toolChoice)) {
    return {
      ok: false,
      problem: `returned toolChoice ${shortForm(toolChoice)}; use "auto", "required", "none" or { name }`,
    };
  }
  const steering = readSteering(step);
  if (!steering.ok) return steering;
  const { tools } = step as { tools?: (Tool<Deps> | string)[] };
  const read: PreparedAnswer<Deps> = { tools, callable: callable as string[] | undefined };
  if (toolChoice !== undefined) read.toolChoice = toolChoice as ModelRequest["toolChoice"];
  if (steering.value) read.steering = steering.value;
  return { ok: true, value: read };
}

function isToolEntry(entry: unknown): boolean {
  return (
    typeof entry === "string" ||
    (typeof entry === "object" && entry !== null && typeof (entry as Tool).name === "string")
  );
}

function isToolChoice(choice: unknown): boolean {
  if (choice === undefined || choice === "auto" || choice === "required" || choice === "none") {
    return true;
  }
  return (
    isPlainObject(choice) &&
    typeof choice.name === "string" &&
    Object.keys(choice).every((key) => key === "name")
  );
}

function toolsOf<Deps>(
  all: Toolset<Deps>,
  step: Omit<PreparedAnswer<Deps>, "tools"> & { tools: readonly (Tool<Deps> | string)[] },
  stepIndex: number,
): ToolsOfStep<Deps> {
  const shown = step.tools.map((entry: Tool<Deps> | string) => {
    // A name must be in the loop's toolset; a tool object may be new (an MCP server's tool
    // listed since the loop was built), as long as it is a tool.
    if (typeof entry === "string") return all.get(entry);
    const name = entry.name;
    if (entry === all.find(name)) return entry;
    if (!isTool(entry)) {
      throw new PolicyError(
        `prepareStep returned an object named "${name}" that is not a tool built with tool()`,
        "prepareStep",
        name,
      );
    }
    return entry;
  });
  const shownByName = new Map(shown.map((tool) => [tool.name, tool]));
  if (shownByName.size < shown.length) throw duplicateOf(shown, all, stepIndex);
  const callable = step.callable === undefined ? shownByName : new Map<string, Tool<Deps>>();
  for (const name of step.callable ?? []) {
    const tool = shownByName.get(name);
    if (!tool) throw new UnknownToolError(name, [...shownByName.keys()]);
    callable.set(name, tool);
  }
  const choice = step.toolChoice;
  if (typeof choice === "object" && choice !== null && !shownByName.has(choice.name)) {
    throw new UnknownToolError(choice.name, [...shownByName.keys()]);
  }
  const offered: ToolsOfStep<Deps> = {
    shown: Object.freeze(shown),
    shownNames: Object.freeze(shown.map((tool) => tool.name)),
    specs: shown.map(({ name, description, inputSchema }) => ({ name, description, inputSchema })),
    find: (name) => callable.get(name),
    callableNames: Object.freeze([...callable.keys()]),
    callableTools: Object.freeze([...callable.values()]),
  };
  if (choice !== undefined) offered.toolChoice = choice;
  return offered;
}

/**
 * The `DuplicateToolError` for a step whose tools name one tool twice, saying which is the
 * loop's own: a name means one tool in a step, or a call could reach another than the model meant.
 */
function duplicateOf<Deps>(
  shown: readonly Tool<Deps>[],
  all: Toolset<Deps>,
  stepIndex: number,
): DuplicateToolError {
  const name = firstRepeated(shown.map((tool) => tool.name))!;
  const both = shown.filter((tool) => tool.name === name);
  const loops = both.filter((tool) => tool === all.find(name)).length;
  const which =
    loops === both.length
      ? `the loop's tool "${name}" ${both.length === 2 ? "twice" : `${both.length} times`}`
      : loops > 0
        ? `the loop's tool "${name}" and another tool of that name`
        : `${both.length} tools named "${name}", none of them the loop's`;
  return new DuplicateToolError(
    name,
    `step ${stepIndex}: prepareStep shows ${which}; a name may appear once in a step: show one of them (or give an MCP server a prefix)`,
  );
}

/** The first name that appears a second time in `names`, if any. */
function firstRepeated(names: readonly string[]): string | undefined {
  const seen = new Set<string>();
  for (const name of names) {
    if (seen.has(name)) return name;
    seen.add(name);
  }
  return undefined;
}

/** Whether a value has what the loop needs of a tool (as `tool()` builds it). */
function isTool(value: Tool<any>): boolean {
  return (
    Object.isFrozen(value) &&
    typeof value.execute === "function" &&
    typeof value.input?.["~standard"]?.validate === "function" &&
    typeof value.inputSchema === "object" &&
    value.inputSchema !== null
  );
}
