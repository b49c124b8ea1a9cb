/**
 * `tollgate/mcp`: an MCP server's tools behind tollgate's gate (`mcpTools`), and a policy
 * that reads their annotations with the MCP spec's defaults (`mcpAnnotationsPolicy`).
 */
export {
  type AnnotationVerdict,
  type McpAnnotationsPolicyOptions,
  mcpAnnotationsPolicy,
  type ResolvedAnnotations,
  resolvedAnnotations,
} from "./annotations-policy.js";
export type { McpHttpSource, McpSource, McpStdioSource } from "./connect.js";
export { McpConnectionError, McpToolError, McpToolNameError } from "./errors.js";
export { type McpToolset, type McpToolsOptions, mcpTools } from "./mcp-toolset.js";
