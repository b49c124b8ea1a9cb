/**
 * `tollgate/ai-sdk`: any AI SDK language model as a tollgate `Provider` (`fromAISDK`), so the
 * dozens of `@ai-sdk/*` provider packages drive tollgate's loop. Needs no AI SDK package itself:
 * the model's types are written out in `language-model.ts`.
 */
export { type FromAISDKOptions, fromAISDK } from "./from-ai-sdk.js";
export type {
  AISDKCallOptions,
  AISDKLanguageModel,
  AISDKMessage,
  AISDKToolResultOutput,
} from "./language-model.js";
