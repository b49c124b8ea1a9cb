/** `tollgate/testing/arbitraries`: under construction (issue 14). */
export {};
