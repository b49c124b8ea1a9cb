import { checkedJsonSchema } from "../tools/checked-json-schema.js";
import { tool } from "../tools/tool.js";
import type {
  Handoff,
  HandoffAgent,
  HandoffInputFilter,
  HandoffOptions,
} from "../types/handoff.js";
import type { Message } from "../types/messages.js";
import { checkKeys, shownValue } from "../util/option-keys.js";
import type { ResolvedHandoff, ResolvedOptions } from "./loop-options.js";

/**
 * A loop's resolved options, or `undefined` for a value that is not an `AgentLoop`: how a
 * handoff finds its target's. `AgentLoop` sets it once, reading its own private field, so a
 * loop costs no registry entry (a module-wide `WeakMap` of every loop slowed each GC).
 */
let optionsOfAgent: (value: unknown) => ResolvedOptions<any> | undefined = () => undefined;
/** What `handoff()` built, so a loop tells a handoff from a stray object. */
const built = new WeakSet<object>();

/** Called once by `AgentLoop`: how to read a loop's resolved options (see `optionsOfAgent`). */
export function readAgentsWith(reader: (value: unknown) => ResolvedOptions<any> | undefined): void {
  optionsOfAgent = reader;
}

/** Agent names: what a handoff tool's default name is made of, and what states record. */
const AGENT_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/** Checks a loop's `name` option: 1–64 letters, digits, `_` or `-`. */
export function checkAgentName(name: unknown, where = "AgentLoop: `name`"): string | undefined {
  if (name === undefined) return undefined;
  if (typeof name !== "string" || !AGENT_NAME.test(name)) {
    throw new TypeError(
      `${where} must be 1–64 letters, digits, "_" or "-", got ${shownValue(name)}`,
    );
  }
  return name;
}

/**
 * A handoff, with its options: the model gets a tool (`transfer_to_<name>`, or `toolName`)
 * that hands the run to `target`, which goes on with the transcript (`inputFilter` writes it)
 * and its own tools, instructions and gate. Give the target as a function to name a loop
 * built later (a handoff back, in a cycle); `name` is then required.
 *
 * @example
 * const triage = new AgentLoop({
 *   name: "triage", provider,
 *   handoffs: [billing, handoff(() => support, { name: "support", inputFilter: removeToolCalls })],
 * });
 */
export function handoff<Deps = unknown>(
  target: HandoffAgent | (() => HandoffAgent),
  options: HandoffOptions<Deps> = {},
): Handoff<Deps> {
  checkKeys("handoff()", options, ["name", "description", "inputFilter", "toolName"]);
  if (typeof target === "function") {
    if (options.name === undefined) {
      throw new TypeError(
        'handoff(): a target given as a function needs `name`, the agent\'s name: handoff(() => support, { name: "support" })',
      );
    }
  } else if (!optionsOfAgent(target)) {
    throw new TypeError(`handoff(): the target must be an AgentLoop, got ${shownValue(target)}`);
  }
  if (options.name !== undefined) checkAgentName(options.name, "handoff(): `name`");
  const { toolName } = options;
  if (toolName !== undefined && (typeof toolName !== "string" || !AGENT_NAME.test(toolName))) {
    throw new TypeError(
      `handoff(): \`toolName\` must be 1–64 letters, digits, "_" or "-", got ${shownValue(toolName)}`,
    );
  }
  if (options.description !== undefined && typeof options.description !== "string") {
    throw new TypeError("handoff(): `description` must be a string");
  }
  if (options.inputFilter !== undefined && typeof options.inputFilter !== "function") {
    throw new TypeError("handoff(): `inputFilter` must be a function (input) => messages");
  }
  const made: Handoff<Deps> = Object.freeze({ target, options: Object.freeze({ ...options }) });
  built.add(made);
  return made;
}

/** The handoff tools' input: no args (an object with no keys; extra keys are refused). */
const NO_ARGS = checkedJsonSchema<Record<string, never>>(
  { type: "object", properties: {}, additionalProperties: false },
  (value) =>
    typeof value === "object" && value !== null && !Array.isArray(value)
      ? Object.keys(value).length === 0
        ? { value: {} }
        : { issues: [{ message: `a handoff takes no args; got ${Object.keys(value).join(", ")}` }] }
      : { issues: [{ message: "the args must be an object: {}" }] },
);

/**
 * A loop's `handoffs` option, checked and resolved: one tool per target, its name unique. A
 * loop with handoffs needs a `name`, and so does every target; a handoff to the loop itself
 * is refused. A function target is asked for its loop on first use.
 */
export function resolveHandoffs<Deps>(
  given: unknown,
  ownName: string | undefined,
): Map<string, ResolvedHandoff<Deps>> | undefined {
  if (given === undefined) return undefined;
  if (!Array.isArray(given)) {
    throw new TypeError("AgentLoop: `handoffs` must be an array of agent loops or handoff(...)");
  }
  if (given.length === 0) return undefined;
  if (ownName === undefined) {
    throw new TypeError(
      "AgentLoop: a loop with `handoffs` needs a `name`, which states record when it holds a run",
    );
  }
  const byTool = new Map<string, ResolvedHandoff<Deps>>();
  given.forEach((entry: unknown, index) => {
    const one = handoffOf<Deps>(entry, `handoffs[${index}]`, ownName);
    if (byTool.has(one.tool.name)) {
      throw new TypeError(
        `AgentLoop: \`handoffs[${index}]\` has the tool name "${one.tool.name}", which another handoff has; give one a toolName`,
      );
    }
    byTool.set(one.tool.name, one);
  });
  return byTool;
}

function handoffOf<Deps>(entry: unknown, where: string, ownName: string): ResolvedHandoff<Deps> {
  const made: Handoff<Deps> | undefined = built.has(entry as object)
    ? (entry as Handoff<Deps>)
    : optionsOfAgent(entry)
      ? { target: entry as HandoffAgent, options: {} }
      : undefined;
  if (!made) {
    throw new TypeError(
      `AgentLoop: \`${where}\` must be an AgentLoop or handoff(loop, options), got ${shownValue(entry)}`,
    );
  }
  const { target, options } = made;
  const direct = typeof target === "function" ? undefined : target;
  const agent = options.name ?? direct?.name;
  if (agent === undefined) {
    throw new TypeError(
      `AgentLoop: \`${where}\` hands off to a loop without a \`name\`; give the target loop a name`,
    );
  }
  if (direct && direct.name !== agent) {
    throw new TypeError(
      `AgentLoop: \`${where}\` is named "${agent}", but its loop is named ${shownValue(direct.name)}`,
    );
  }
  if (agent === ownName) {
    throw new TypeError(`AgentLoop: \`${where}\` hands off to "${agent}", this loop itself`);
  }
  const toolName = options.toolName ?? `transfer_to_${agent}`;
  if (toolName.length > 64) {
    throw new TypeError(
      `AgentLoop: \`${where}\`'s tool name "${toolName}" is over 64 characters, the most providers take; give it a shorter toolName`,
    );
  }
  const more = options.description ? ` ${options.description}` : "";
  const handoffTool = tool<Deps>({
    name: toolName,
    description: `Hand the conversation to the agent "${agent}", which goes on from here.${more}`,
    input: NO_ARGS,
    execute: () => ({ agent }),
  });
  let resolved: ResolvedOptions<Deps> | undefined = direct && optionsOfAgent(direct);
  return {
    agent,
    tool: handoffTool,
    inputFilter: options.inputFilter,
    options: () => {
      if (resolved) return resolved;
      const loop = (target as () => HandoffAgent)();
      const found = optionsOfAgent(loop);
      if (!found) {
        throw new TypeError(
          `handoff(): the function for "${agent}" must return an AgentLoop, got ${shownValue(loop)}`,
        );
      }
      if (found.name !== agent) {
        throw new TypeError(
          `handoff(): the function for "${agent}" returned the loop named ${shownValue(found.name)}`,
        );
      }
      resolved = found as ResolvedOptions<Deps>;
      return resolved;
    },
  };
}

/**
 * The agent named `name` among those `root` hands off to, directly or through others (or
 * `root` itself), or `undefined`. Two different loops of one name on the way are a
 * `TypeError`: a state naming that agent could mean either.
 */
export function findAgent<Deps>(
  root: ResolvedOptions<Deps>,
  name: string,
): ResolvedOptions<Deps> | undefined {
  return graphOf(root)?.agents.get(name);
}

/**
 * The options a run uses once `agent` holds it: the agent's own (provider, tools, instructions,
 * settings, hooks, policy, repair, error texts, retries, parallelism, args limits), with what
 * belongs to the run kept from `run` (deps, store, keys and trust, migrations, steps and
 * limits, stop conditions, timeouts, output, signal). Made once per pair.
 */
export function handedOptions<Deps>(
  run: ResolvedOptions<Deps>,
  agent: ResolvedOptions<Deps>,
): ResolvedOptions<Deps> {
  if (agent === run) return run;
  let byAgent = handed.get(run);
  if (!byAgent) {
    byAgent = new WeakMap();
    handed.set(run, byAgent);
  }
  const made = byAgent.get(agent);
  if (made) return made as ResolvedOptions<Deps>;
  const options: ResolvedOptions<Deps> = {
    ...agent,
    deps: run.deps,
    store: run.store,
    signingKey: run.signingKey,
    trustState: run.trustState,
    allowReplay: run.allowReplay,
    stateMigrations: run.stateMigrations,
    maxSteps: run.maxSteps,
    limits: run.limits,
    stopWhen: run.stopWhen,
    timeoutMs: run.timeoutMs,
    modelTimeoutMs: run.modelTimeoutMs,
    output: run.output,
    signal: run.signal,
    root: run,
    everyTool: undefined,
  };
  byAgent.set(agent, options);
  return options;
}

const handed = new WeakMap<object, WeakMap<object, ResolvedOptions<any>>>();

/**
 * An input filter: the transcript without tool calls and tool results (an assistant message
 * left with nothing is dropped), as OpenAI Agents' `removeAllTools`.
 */
export const removeToolCalls: HandoffInputFilter<any> = ({ messages }) => {
  const kept: Message[] = [];
  for (const message of messages) {
    if (message.role === "tool") continue;
    if (message.role !== "assistant") {
      kept.push(message);
      continue;
    }
    const parts = message.parts.filter((part) => part.type !== "tool-call");
    if (parts.length > 0) kept.push({ ...message, parts });
  }
  return kept;
};

/**
 * The tool names of the agents `root` hands off to, directly or through others (`[]` for a
 * loop without handoffs; `undefined`, while `building`, when a target given as a function names
 * a loop not built yet). A `TypeError` for two loops of one name, as `graphOf` says.
 */
export function graphToolNames<Deps>(
  root: ResolvedOptions<Deps>,
  /** At construction: a target given as a function that cannot answer yet is not an error. */
  building = false,
): readonly string[] | undefined {
  if (!root.handoffs) return [];
  return graphOf(root, building)?.toolNames;
}

/** `root`'s handoff graph: its agents by name (`root` included), and their tools' names but `root`'s. */
interface Graph<Deps> {
  readonly agents: ReadonlyMap<string, ResolvedOptions<Deps>>;
  readonly toolNames: readonly string[];
}

/**
 * Walks `root`'s handoff graph once, breadth first, and keeps it. Two different loops of one
 * name on the way are a `TypeError`: a state naming that agent could mean either. While
 * `building`, a target given as a function that cannot answer yet gives `undefined` (asked
 * again later); otherwise its error is thrown. `undefined` for a loop without handoffs.
 */
function graphOf<Deps>(root: ResolvedOptions<Deps>, building = false): Graph<Deps> | undefined {
  if (!root.handoffs) return undefined;
  const known = walked.get(root);
  if (known) return known as Graph<Deps>;
  const names = new Set<string>();
  const agents = new Map<string, ResolvedOptions<Deps>>([[root.name!, root]]);
  const queue: ResolvedOptions<Deps>[] = [root];
  while (queue.length > 0) {
    for (const next of queue.shift()!.handoffs?.values() ?? []) {
      let options: ResolvedOptions<Deps>;
      try {
        options = next.options();
      } catch (error) {
        if (building) return undefined; // a loop not built yet: asked again at run()
        throw error;
      }
      const earlier = agents.get(next.agent);
      if (earlier === options) continue;
      if (earlier) {
        throw new TypeError(
          `AgentLoop: two different loops named "${next.agent}" are in the handoff graph of "${root.name}"; give each agent its own name`,
        );
      }
      agents.set(next.agent, options);
      for (const name of options.tools.names()) names.add(name);
      queue.push(options);
    }
  }
  const graph: Graph<Deps> = { agents, toolNames: Object.freeze([...names]) };
  walked.set(root, graph);
  return graph;
}

const walked = new WeakMap<object, Graph<any>>();
