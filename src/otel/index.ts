/** `tollgate/otel`: under construction (issue 13). */
export {};
