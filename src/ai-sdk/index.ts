/** `tollgate/ai-sdk`: under construction (issue 13). */
export {};
