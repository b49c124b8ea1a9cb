/** `tollgate/vitest`: under construction (issue 14). */
export {};
