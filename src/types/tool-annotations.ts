/**
 * Hints a tool gives about itself, with the MCP specification's names. They are claims, not
 * guarantees: a gate may ask a human before a destructive call, never trust a read-only claim
 * of a tool it does not control. `tollgate/mcp`'s `mcpAnnotationsPolicy` reads them.
 */
export interface ToolAnnotations {
  /** A human-readable title. */
  readonly title?: string | undefined;
  /** Changes nothing in its environment. */
  readonly readOnlyHint?: boolean | undefined;
  /** May destroy or overwrite (meaningful only when not read-only). */
  readonly destructiveHint?: boolean | undefined;
  /** Calling it twice with the same args has no further effect. */
  readonly idempotentHint?: boolean | undefined;
  /** Reaches an open world of entities (the web), not a closed one (a local database). */
  readonly openWorldHint?: boolean | undefined;
}
