export { GEMINI_BASE_URL, type GeminiOptions, gemini } from "./gemini.js";
export { toGeminiSchema } from "./schema.js";
