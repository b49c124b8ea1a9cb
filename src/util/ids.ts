/** Makes a tool-call id for providers that send none (Gemini, some local servers). */
export const newToolCallId = (): string => `call_${crypto.randomUUID().replaceAll("-", "")}`;
