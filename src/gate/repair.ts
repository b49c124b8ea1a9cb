import {
  type ArgsLimits,
  argsFromValue,
  checkArgs,
  freezeJson,
  withoutAdvice,
} from "../tools/args.js";
import type { Message, ToolSpec } from "../types/messages.js";
import type { ProviderCallOptions } from "../types/provider.js";
import type { Tool } from "../types/tool.js";
import type { RepairInfo, RepairProvider } from "../types/tool-feedback.js";
import { andThen, type MaybePromise } from "../util/maybe-promise.js";
import { callPolicy } from "../util/policy-call.js";
import type { GateOutcome, GateRequest, SentRequest } from "./gate-types.js";
import type { AfterHooks } from "./hook-chain.js";

/**
 * Asks `repairToolCall` to fix a call's args: fixed args are read like a hook's rewrite,
 * validated again and then judged (`judge`: hooks and decision) like the model's own; no fix
 * (or a fix the schema rejects) leaves the call invalid. A throw, or an answer JSON cannot
 * carry, is `PolicyError`. Asked only for a call whose args failed, and only when the loop has
 * a `repairToolCall`.
 */
export function repaired<Deps>(
  request: GateRequest<Deps>,
  tool: Tool<Deps>,
  invalid: GateOutcome & { kind: "invalid" },
  judge: AfterHooks<Deps>,
): MaybePromise<GateOutcome> {
  const { argsLimits } = request;
  const repair = request.repair!;
  const info = repairInfo(request, tool, invalid);
  const fixed = callPolicy(
    "repairToolCall",
    tool.name,
    () => repair(info),
    (answer) => readRepair(answer, argsLimits),
  );
  return andThen(fixed, (args) => {
    if (args === undefined) return invalid;
    return andThen(checkArgs(tool, args), (checked) => {
      if (!checked.ok) return invalid;
      const chain = { args: checked.args, parsed: checked.parsed };
      return andThen(judge(request, tool, chain), (outcome) => {
        if ("call" in outcome) outcome.repaired = true;
        return outcome;
      });
    });
  });
}

/**
 * What the repair reads, frozen: the call, the error, and the step's request as it was sent.
 * The messages and tools are copied only when read (the request's own lists never change once
 * sent, so a later read sees the same); the provider is a frozen view whose calls are bound to
 * it, so a repair can ask a model but cannot swap the loop's provider.
 */
function repairInfo<Deps>(
  request: GateRequest<Deps>,
  tool: Tool<Deps>,
  invalid: GateOutcome & { kind: "invalid" },
): RepairInfo<Deps> {
  const { part, step, deps } = request;
  const sent = request.sent!();
  const { messages: sentMessages, tools: sentTools } = sent.request;
  let messages: readonly Message[] | undefined;
  let tools: readonly ToolSpec[] | undefined;
  let inputSchema: Readonly<Record<string, unknown>> | undefined;
  let provider: RepairProvider | undefined;
  const copy = <T>(value: T): T => freezeJson(structuredClone(value));
  const toolsNow = () => {
    tools ??= copy(sentTools);
    return tools;
  };
  const info: RepairInfo<Deps> = {
    call: Object.freeze({ id: part.id, name: part.name, rawArgs: part.args }),
    error: withoutAdvice(invalid.message),
    tool,
    step,
    get messages() {
      messages ??= copy(sentMessages);
      return messages;
    },
    instructions: sent.request.system,
    get tools() {
      return toolsNow();
    },
    get inputSchema() {
      const spec = toolsNow().find((shown) => shown.name === tool.name);
      inputSchema ??= spec?.inputSchema ?? copy(tool.inputSchema);
      return inputSchema;
    },
    get provider() {
      provider ??= providerView(sent);
      return provider;
    },
    deps,
    runId: sent.runId,
    get signal() {
      return sent.signal();
    },
  };
  return Object.freeze(info);
}

/** The step's provider for a repair: name, model, and its calls bound to it (frozen). */
function providerView(sent: SentRequest): RepairProvider {
  const { provider } = sent;
  const optionsOf = (options: ProviderCallOptions | undefined) =>
    options ?? { signal: sent.signal() };
  const view: RepairProvider = {
    name: provider.name,
    model: provider.model,
    generate: (request, options) => provider.generate(request, optionsOf(options)),
  };
  const { stream } = provider;
  if (stream)
    view.stream = (request, options) => stream.call(provider, request, optionsOf(options));
  return Object.freeze(view);
}

/** Reads `repairToolCall`'s answer: `undefined` (no fix), or args JSON can carry (model form). */
function readRepair(
  answer: unknown,
  limits: ArgsLimits,
): { ok: true; value: unknown } | { ok: false; problem: string } {
  if (answer === undefined) return { ok: true, value: undefined };
  if (typeof answer === "string" || answer === null) {
    // A tool's args are an object: a string is the JSON text not parsed yet, a mistake.
    return {
      ok: false,
      problem: `returned ${answer === null ? "null" : "a string"}; return the fixed args as data (JSON.parse the text), or undefined for no fix`,
    };
  }
  const read = argsFromValue(answer, limits);
  if (read.ok) return { ok: true, value: read.args };
  return {
    ok: false,
    problem: `returned args that are not JSON args (${read.message}); return the fixed args as JSON data, or undefined for no fix`,
  };
}
