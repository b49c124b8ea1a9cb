// Type test of `fromAISDK` against the AI SDK's own types. They live in bench/node_modules (the
// AI SDK's engines ask for Node 22; bench/peers.ts says why), so this file is checked by
// `npm run typecheck:bench` (bench/tsconfig.json includes it), not by `npm run typecheck`,
// which must work without them (tsconfig.json excludes it).
import type { Provider } from "tollgate";
import { type AISDKLanguageModel, fromAISDK } from "tollgate/ai-sdk";
import { expectTypeOf } from "vitest";
import type { createAnthropic } from "../../bench/node_modules/@ai-sdk/anthropic/dist/index.js";
import type { createOpenAI } from "../../bench/node_modules/@ai-sdk/openai/dist/index.js";
import type {
  LanguageModelV2,
  LanguageModelV3,
  LanguageModelV4,
} from "../../bench/node_modules/@ai-sdk/provider/dist/index.js";

declare const v4: LanguageModelV4;
declare const v3: LanguageModelV3;
declare const v2: LanguageModelV2;
declare const openai: ReturnType<typeof createOpenAI>;
declare const anthropic: ReturnType<typeof createAnthropic>;

// The specification's model types, and what the provider packages return, are assignable.
expectTypeOf(v4).toExtend<AISDKLanguageModel>();
expectTypeOf(v3).toExtend<AISDKLanguageModel>();
expectTypeOf(fromAISDK(v4)).toEqualTypeOf<Provider>();
fromAISDK(openai("gpt-4o"));
fromAISDK(openai.chat("gpt-4o"));
fromAISDK(openai.responses("gpt-4o"));
fromAISDK(anthropic("claude-sonnet-4-5"));
fromAISDK(v3, { name: "mine" });
fromAISDK(v4, { name: "mine", maxRetries: 0 });
// @ts-expect-error a misspelt option is a type error too (and a TypeError at run time)
fromAISDK(v4, { nmae: "mine" });

// An older model (V2), a model id string, or an embedding model is not one.
// @ts-expect-error V2 models are not supported
fromAISDK(v2);
// @ts-expect-error a model id is not a model (the AI SDK's gateway strings are not taken)
fromAISDK("openai/gpt-4o");
// @ts-expect-error an embedding model is not a language model
fromAISDK(openai.embedding("text-embedding-3-small"));
