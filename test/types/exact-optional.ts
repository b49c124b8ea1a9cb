// Type tests under exactOptionalPropertyTypes (tsconfig.types.json): an option read from the
// environment or a config (`string | undefined`) is accepted where the option is optional, and
// means "not given", as at runtime.
import {
  AgentLoop,
  type ApprovalDecision,
  type ModelSettings,
  onTool,
  type PreToolCallVerdict,
  tool,
} from "tollgate";
import { anthropic } from "tollgate/anthropic";
import { gemini } from "tollgate/gemini";
import { openAIChat, openAIResponses } from "tollgate/openai";
import { scriptedProvider } from "tollgate/testing";
import { z } from "zod";

declare const config: {
  temperature?: number;
  timeoutMs?: number;
  retries?: number;
  signingKey?: string;
};
const env = process.env;

// Provider options.
openAIChat({ model: "gpt-4.1-mini", baseURL: env.OPENAI_BASE_URL, apiKey: env.OPENAI_API_KEY });
openAIChat({ model: "m", name: env.PROVIDER_NAME, maxTokensParam: undefined });
openAIResponses({ model: "gpt-5-mini", timeoutMs: config.timeoutMs, maxRetries: config.retries });
anthropic({ model: "claude-sonnet-4-5", apiKey: env.ANTHROPIC_API_KEY, maxTokens: undefined });
gemini({ model: "gemini-2.5-flash", baseURL: env.GEMINI_BASE_URL, headers: undefined });
const settings: ModelSettings = { temperature: config.temperature, seed: undefined };
// @ts-expect-error the model is required
openAIChat({ baseURL: env.OPENAI_BASE_URL });
// @ts-expect-error undefined is accepted, another type is not
openAIChat({ model: "m", timeoutMs: "30s" });

// Loop, run and resume options.
const loop = new AgentLoop({
  provider: scriptedProvider([]),
  instructions: env.SYSTEM_PROMPT,
  settings,
  maxSteps: config.retries,
  signingKey: config.signingKey,
  store: undefined,
});
void loop.run("hi", { runId: env.RUN_ID, maxSteps: undefined, signal: undefined });
declare const state: Parameters<typeof loop.resume>[0];
void loop.resume(state, {}, { instructions: env.SYSTEM_PROMPT, deps: undefined });

// Tool definitions, hook verdicts and decisions.
tool({
  name: "t",
  description: env.TOOL_DESCRIPTION,
  input: z.object({}),
  timeoutMs: config.timeoutMs,
  maxRetries: config.retries,
  execute: () => "ok",
});
const stopReason: string | undefined = env.STOP_REASON;
const verdict: PreToolCallVerdict = { stop: stopReason !== undefined, stopReason };
void verdict;
onTool(tool({ name: "u", input: z.object({}), execute: () => 1 }), () => ({
  block: env.BLOCKED,
  confirm: undefined,
}));
const decision: ApprovalDecision = { approve: false, reason: env.REASON, digest: env.DIGEST };
void decision;

// Message parts, policy answers and the fakes' options take undefined too.
import type { LoopPolicy as ExactPolicy, UserPart as ExactUserPart } from "tollgate";
import { scriptedProvider as exactScripted } from "tollgate/testing";

const maybeType: string | undefined = process.env.MEDIA_TYPE;
const maybeName: string | undefined = process.env.FILE_NAME;
const exactParts: ExactUserPart[] = [
  { type: "image", image: "https://example.com/cat.png", mediaType: maybeType },
  {
    type: "file",
    data: "https://example.com/a.pdf",
    mediaType: "application/pdf",
    filename: maybeName,
  },
];
void exactParts;
const exactPolicy: ExactPolicy = {
  decideToolCall: () => ({ decision: "DENY", reason: maybeName }),
  prepareStep: () => ({ tools: [], callable: undefined, toolChoice: undefined }),
};
void exactPolicy;
void exactScripted([{ text: maybeName, toolCalls: undefined }], {
  stream: undefined,
  chunkSize: undefined,
});
