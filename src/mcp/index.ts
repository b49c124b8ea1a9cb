/** `tollgate/mcp`: under construction (issue 13). */
export {};
