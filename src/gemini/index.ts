/** The options every adapter takes (`GeminiOptions` is exactly these). */
export type { HttpProviderOptions } from "../http/transport.js";
export { GEMINI_BASE_URL, type GeminiOptions, gemini } from "./gemini.js";
export { toGeminiSchema } from "./schema.js";
