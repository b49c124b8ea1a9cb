export { type ChatResponseOptions, chatResponse } from "./chat-response.js";
export type { ToolOutputView } from "./chunks.js";
export { fromUIMessages } from "./from-ui-messages.js";
export {
  toUIMessageStream,
  toUIMessageStreamResponse,
  type UIMessageStreamOptions,
} from "./to-ui-message-stream.js";
export type { UIMessageChunk, UIMessageInput, UIPartInput } from "./ui-message.js";
