export { type OpenAIChatOptions, openAIChat } from "./chat.js";
export type { MaxTokensParam } from "./chat-request.js";
export { OPENAI_BASE_URL, type OpenAIOptions } from "./openai-transport.js";
export {
  decodeReasoningSignature,
  encodeReasoningSignature,
  type ReasoningItemRef,
} from "./reasoning-signature.js";
export { type OpenAIResponsesOptions, openAIResponses } from "./responses.js";
