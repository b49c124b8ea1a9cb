import { messageOf } from "../errors.js";
import { checkSettings } from "../model/settings.js";
import { freezeJson } from "../tools/args.js";
import type { Message } from "../types/messages.js";
import type { ModelSettings, Provider } from "../types/provider.js";
import type { StepRecord } from "../types/step-record.js";
import { shortForm } from "../util/policy-call.js";
import { type Read, readMessages } from "./read-messages.js";

/**
 * What `prepareStep` changed for one step besides its tools, checked: the step's system
 * prompt, its own settings (JSON, frozen), its provider, and the messages sent to the model.
 */
export interface StepSteering {
  instructions?: string;
  settings?: ModelSettings;
  provider?: Provider;
  messages?: readonly Message[];
}

/** The keys of `prepareStep`'s answer that steer the step. */
export const STEERING_KEYS = ["instructions", "settings", "provider", "messages"] as const;

/**
 * Reads the steering keys of `prepareStep`'s answer, each checked as the loop's option of the
 * same name is; `undefined` when it gives none. A problem is worded to follow "prepareStep".
 */
export function readSteering(answer: Record<string, unknown>): Read<StepSteering | undefined> {
  const { instructions, settings, provider, messages } = answer;
  if (
    instructions === undefined &&
    settings === undefined &&
    provider === undefined &&
    messages === undefined
  ) {
    return { ok: true, value: undefined };
  }
  const steering: StepSteering = {};
  if (instructions !== undefined) {
    if (typeof instructions !== "string") {
      return {
        ok: false,
        problem: `returned instructions ${shortForm(instructions)}; give a string`,
      };
    }
    steering.instructions = instructions;
  }
  if (settings !== undefined) {
    const read = readSettings(settings);
    if (!read.ok) return read;
    steering.settings = read.value;
  }
  if (provider !== undefined) {
    const problem = providerProblem(provider);
    if (problem) return { ok: false, problem: `returned a provider that ${problem}` };
    steering.provider = provider as Provider;
  }
  if (messages !== undefined) {
    const read = readMessages(messages);
    if (!read.ok) return { ok: false, problem: `returned messages that ${read.problem}` };
    steering.messages = read.value;
  }
  return { ok: true, value: steering };
}

/** What a step's record keeps of its steering: small, plain JSON. */
export function steeringRecord(
  steering: StepSteering,
): Pick<StepRecord, "instructions" | "settings" | "provider" | "messages"> {
  const record: Pick<StepRecord, "instructions" | "settings" | "provider" | "messages"> = {};
  if (steering.instructions !== undefined) record.instructions = steering.instructions;
  if (steering.settings !== undefined) record.settings = steering.settings;
  if (steering.provider !== undefined) {
    record.provider = { name: steering.provider.name, model: steering.provider.model };
  }
  if (steering.messages !== undefined) record.messages = steering.messages.length;
  return record;
}

function readSettings(settings: unknown): Read<ModelSettings> {
  try {
    checkSettings("prepareStep", settings);
  } catch (error) {
    const problem = messageOf(error).replace(/^prepareStep: /, "");
    return { ok: false, problem: `returned bad settings: ${problem}` };
  }
  // Recorded in the step (and the state): a JSON copy, so it is data the caller cannot change.
  let text: string | undefined;
  try {
    text = JSON.stringify(settings);
  } catch (error) {
    return { ok: false, problem: `returned settings JSON cannot carry (${messageOf(error)})` };
  }
  return { ok: true, value: freezeJson(JSON.parse(text!) as ModelSettings) };
}

/** Why a value is not a provider the loop can call, or `undefined` when it is one. */
function providerProblem(provider: unknown): string | undefined {
  if (typeof provider !== "object" || provider === null) return `is ${shortForm(provider)}`;
  const { name, model, generate, stream } = provider as Record<string, unknown>;
  if (typeof generate !== "function") {
    return "has no generate() method; build one with defineProvider()";
  }
  if (stream !== undefined && typeof stream !== "function")
    return "has a stream that is not a function";
  if (typeof name !== "string" || name === "") return "has no name";
  if (typeof model !== "string") return "has no model name";
  return undefined;
}
