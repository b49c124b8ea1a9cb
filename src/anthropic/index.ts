export {
  ANTHROPIC_BASE_URL,
  ANTHROPIC_VERSION,
  type AnthropicOptions,
  anthropic,
} from "./anthropic.js";
export { REDACTED_PREFIX } from "./thinking.js";
