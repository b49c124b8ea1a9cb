/** What a tool's name may be: 1–64 of `a-z A-Z 0-9 _ -` (what the model APIs accept). */
export const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
