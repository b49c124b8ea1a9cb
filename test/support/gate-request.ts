import type { Tool } from "tollgate";
import type { GateRequest } from "../../src/gate/gate.js";
import { DEFAULT_ARGS_LIMITS } from "../../src/tools/args.js";

/**
 * A request for the gate alone: one call to `send` with `{"to":"bob"}`, no hooks, no policy,
 * nothing refused before; `context` throws, since a tool without `needsApproval` never asks.
 */
export function gateRequest(
  tool: Tool<undefined> | undefined,
  overrides: Partial<GateRequest<undefined>> = {},
): GateRequest<undefined> {
  return {
    part: { type: "tool-call", id: "c1", name: "send", args: '{"to":"bob"}' },
    tool,
    callable: ["send"],
    step: 0,
    hooks: [],
    policy: {},
    deps: undefined,
    provider: { name: "test", model: "m" },
    argsLimits: DEFAULT_ARGS_LIMITS,
    context: () => {
      throw new Error("context not expected here");
    },
    refused: () => undefined,
    ...overrides,
  };
}
