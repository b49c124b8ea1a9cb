import { UnknownToolError } from "./errors.js";
import { isPromise, type MaybePromise } from "./maybe-promise.js";
import type { ToolSpec } from "./messages.js";
import type { PreparedStep, StepTools } from "./policy.js";
import type { ModelRequest } from "./provider.js";
import type { RunContext } from "./run-context.js";
import type { Tool } from "./tool.js";
import { Toolset } from "./toolset.js";

/** The tools of one step: what the model is shown and what may run. */
export interface StepView<Deps> {
  shown: readonly Tool<Deps>[];
  specs: ToolSpec[];
  /** The callable tool of this name, if any. */
  callable(name: string): Tool<Deps> | undefined;
  callableNames(): string[];
  callableTools(): Tool<Deps>[];
  toolChoice?: ModelRequest["toolChoice"];
}

/** Asks `prepareStep` (when there is one) which tools this step shows and which may run. */
export function stepTools<Deps>(run: RunContext<Deps>): MaybePromise<StepView<Deps>> {
  const { tools, policy } = run.options;
  if (!policy.prepareStep) return fullView(run);
  const prepared = policy.prepareStep({
    stepIndex: run.steps.length,
    executed: run.executed.slice(),
    tools,
  });
  const viewFor = (answer: PreparedStep<Deps>) =>
    answer === undefined || answer === null ? fullView(run) : viewOf(tools, normalize(answer));
  return isPromise(prepared)
    ? run.race(Promise.resolve(prepared)).then(viewFor)
    : viewFor(prepared);
}

/** Every tool shown and callable; its specs were computed once, with the options. */
function fullView<Deps>(run: RunContext<Deps>): StepView<Deps> {
  const { tools, specs } = run.options;
  return {
    shown: [...tools],
    specs: specs.slice(),
    callable: (name) => tools.find(name),
    callableNames: () => tools.names(),
    callableTools: () => [...tools],
  };
}

function normalize<Deps>(prepared: NonNullable<PreparedStep<Deps>>): StepTools<Deps> {
  if (prepared instanceof Toolset) return { tools: [...prepared] };
  if (Array.isArray(prepared)) return { tools: prepared };
  if (typeof prepared === "object" && Array.isArray(prepared.tools)) return prepared;
  throw new TypeError(
    "prepareStep must return tools, tool names, a Toolset, { tools, callable?, toolChoice? } or undefined",
  );
}

function viewOf<Deps>(all: Toolset<Deps>, step: StepTools<Deps>): StepView<Deps> {
  const shown = step.tools.map((entry: Tool<Deps> | string) => {
    const name = typeof entry === "string" ? entry : entry.name;
    const known = all.get(name);
    return typeof entry === "string" ? known : entry;
  });
  const shownByName = new Map(shown.map((tool) => [tool.name, tool]));
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
  const view: StepView<Deps> = {
    shown,
    specs: shown.map(({ name, description, inputSchema }) => ({ name, description, inputSchema })),
    callable: (name) => callable.get(name),
    callableNames: () => [...callable.keys()],
    callableTools: () => [...callable.values()],
  };
  if (choice !== undefined) view.toolChoice = choice;
  return view;
}
