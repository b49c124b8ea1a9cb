import { UnknownToolError } from "./errors.js";
import { isPromise, type MaybePromise } from "./maybe-promise.js";
import type { ToolSpec } from "./messages.js";
import type { PreparedStep, StepTools } from "./policy.js";
import type { ModelRequest } from "./provider.js";
import type { RunContext } from "./run-context.js";
import type { Tool } from "./tool.js";
import { Toolset } from "./toolset.js";

/**
 * The tools of one step: what the model is shown and what may run. Plain data, shared and
 * frozen when every tool is offered (computed once per loop, not per step).
 */
export interface StepView<Deps> {
  shown: readonly Tool<Deps>[];
  shownNames: readonly string[];
  specs: readonly ToolSpec[];
  /** The callable tool of this name, if any. */
  find(name: string): Tool<Deps> | undefined;
  callableNames: readonly string[];
  callableTools: readonly Tool<Deps>[];
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
    ? Promise.resolve(prepared).then((answer) => {
        run.signal.throwIfAborted();
        return viewFor(answer);
      })
    : viewFor(prepared);
}

const fullViews = new WeakMap<object, StepView<any>>();

/** Every tool shown and callable: computed once per loop. */
function fullView<Deps>(run: RunContext<Deps>): StepView<Deps> {
  const { tools, specs } = run.options;
  let view = fullViews.get(run.options);
  if (!view) {
    const all = Object.freeze([...tools]);
    const names = Object.freeze(tools.names());
    view = Object.freeze({
      shown: all,
      shownNames: names,
      specs: Object.freeze(specs.slice()),
      find: (name: string) => tools.find(name),
      callableNames: names,
      callableTools: all,
    });
    fullViews.set(run.options, view);
  }
  return view;
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
    shownNames: shown.map((tool) => tool.name),
    specs: shown.map(({ name, description, inputSchema }) => ({ name, description, inputSchema })),
    find: (name) => callable.get(name),
    callableNames: [...callable.keys()],
    callableTools: [...callable.values()],
  };
  if (choice !== undefined) view.toolChoice = choice;
  return view;
}
