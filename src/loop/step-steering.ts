import { messageOf } from "../errors.js";
import { checkSettings } from "../model/settings.js";
import { freezeJson } from "../tools/args.js";
import type { Message } from "../types/messages.js";
import type { ModelSettings, Provider } from "../types/provider.js";
import type { StepRecord } from "../types/step-record.js";
import { storedMessage } from "../util/content-parts.js";
import { shortForm } from "../util/policy-call.js";
import { messagesProblem } from "./message-schema.js";

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

/** A value read from user code, or what is wrong with it. */
export type Read<T> = { ok: true; value: T } | { ok: false; problem: string };

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

/**
 * Reads a step's messages as `run()` reads its input (each message stored, parts checked),
 * copies them (the caller keeps no handle on what is sent), checks them against the state's
 * message schema, then checks the transcript's invariant.
 */
export function readMessages(value: unknown): Read<readonly Message[]> {
  if (!Array.isArray(value)) return { ok: false, problem: `are ${shortForm(value)}, not an array` };
  if (value.length === 0) return { ok: false, problem: "are empty; send at least one message" };
  let messages: Message[];
  try {
    messages = structuredClone(value.map((message, index) => storedMessage(message, index)));
  } catch (error) {
    return { ok: false, problem: `fail: ${messageOf(error).replace(/^run\(\): /, "")}` };
  }
  const problem = messagesProblem(messages) ?? invariantProblem(messages);
  if (problem) return { ok: false, problem: `fail: ${problem}` };
  return { ok: true, value: freezeJson(messages) };
}

/**
 * The transcript's invariant: a tool message directly follows an assistant message with tool
 * calls and holds exactly one result for each of its calls (no other); an assistant message
 * with calls is directly followed by its tool message.
 */
function invariantProblem(messages: readonly Message[]): string | undefined {
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i]!;
    const before = messages[i - 1];
    if (message.role === "tool") {
      const ids =
        before?.role === "assistant"
          ? before.parts.flatMap((part) => (part.type === "tool-call" ? [part.id] : []))
          : [];
      if (ids.length === 0) {
        return `[${i}]: a tool message must directly follow the assistant message whose calls it answers (drop the two together)`;
      }
      const answered = message.results.map((result) => result.toolCallId);
      const extra = answered.find((id, at) => !ids.includes(id) || answered.indexOf(id) !== at);
      if (extra !== undefined) {
        return `[${i}]: the result for call ${extra} answers no call of the assistant message before it, or answers it twice`;
      }
      const missing = ids.find((id) => !answered.includes(id));
      if (missing !== undefined) return `[${i}]: call ${missing} has no result`;
      continue;
    }
    if (
      message.role === "assistant" &&
      message.parts.some((part) => part.type === "tool-call") &&
      messages[i + 1]?.role !== "tool"
    ) {
      return `[${i}]: the assistant message's tool calls must be followed by their tool message`;
    }
  }
  return undefined;
}
