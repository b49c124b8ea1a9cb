// Type tests: hooks and policies typed per tool (onTool, isCallTo).
import {
  AgentLoop,
  isCallTo,
  type LoopPolicy,
  onTool,
  type PreToolCallHook,
  type ToolInput,
  tool,
} from "tollgate";
import { scriptedProvider } from "tollgate/testing";
import { expectTypeOf } from "vitest";
import { z } from "zod";

const readFile = tool({
  name: "read_file",
  input: z.object({ path: z.string(), encoding: z.enum(["utf8", "base64"]).default("utf8") }),
  execute: ({ path }) => path,
});
const transfer = tool.withDeps<{ limit: number }>()({
  name: "transfer",
  input: z.object({ amount: z.number().transform((n) => BigInt(n)) }),
  execute: ({ amount }) => String(amount),
});

// ToolInput: the args in the model's form (the schema's input side, not execute's), completed:
// a field with a default is always there, since the gate fills it in before anyone judges.
expectTypeOf<ToolInput<typeof readFile>>().toEqualTypeOf<{
  path: string;
  encoding: "utf8" | "base64";
}>();
expectTypeOf<ToolInput<typeof transfer>>().toEqualTypeOf<{ amount: number }>();

// onTool: args typed from the tool's schema, no cast; a PreToolCallHook comes out.
const noSecrets = onTool(readFile, ({ args, name, deps }) => {
  expectTypeOf(args.path).toEqualTypeOf<string>();
  expectTypeOf(args.encoding).toEqualTypeOf<"utf8" | "base64">();
  expectTypeOf(name).toEqualTypeOf<string>();
  expectTypeOf(deps).toEqualTypeOf<unknown>();
  return args.path.startsWith("/etc/") ? { block: "off limits" } : undefined;
});
expectTypeOf(noSecrets).toEqualTypeOf<PreToolCallHook<unknown>>();

// @ts-expect-error args are typed: there is no `file`
onTool(readFile, ({ args }) => void args.file);
// Rewritten args are typed too.
onTool(readFile, ({ args }) => ({ args: { ...args, path: `/sandbox/${args.path}` } }));
// @ts-expect-error rewritten args must fit the tool's input
onTool(readFile, () => ({ args: { path: 42 } }));
// @ts-expect-error a verdict has no `deny` (it is `block`)
onTool(readFile, () => ({ deny: true }));
// Async hooks and deps from the tool.
const capped = onTool(transfer, async ({ args, deps }) => {
  expectTypeOf(args.amount).toEqualTypeOf<number>();
  expectTypeOf(deps).toEqualTypeOf<{ limit: number }>();
  return args.amount > deps.limit ? { confirm: true } : undefined;
});
expectTypeOf(capped).toEqualTypeOf<PreToolCallHook<{ limit: number }>>();
// @ts-expect-error onTool takes a tool, not a name
onTool("read_file", () => undefined);

// They go into preToolCall next to ordinary hooks, and a tool's deps carry to the loop.
new AgentLoop({
  provider: scriptedProvider([]),
  tools: [readFile, transfer],
  deps: { limit: 100 },
  preToolCall: [noSecrets, capped, (call) => void call.args],
});
// @ts-expect-error capped reads deps: the loop needs them
new AgentLoop({ provider: scriptedProvider([]), tools: [readFile], preToolCall: [capped] });

// isCallTo narrows a policy's call, a pending approval, or a hook's call.
const policy: LoopPolicy<{ limit: number }> = {
  decideToolCall: ({ call, deps }) => {
    // @ts-expect-error before narrowing, args are unknown
    void call.args.amount;
    if (isCallTo(call, transfer) && call.args.amount > deps.limit) return "NEEDS_APPROVAL";
    return undefined;
  },
  endsRun: ({ call }) => isCallTo(call, readFile) && call.args.path === "DONE",
};
void policy;
