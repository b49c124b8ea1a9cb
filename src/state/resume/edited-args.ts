import { ResumeError } from "../../errors.js";
import type { ArgsLimits } from "../../tools/args.js";
import { argsFromValue, checkArgs } from "../../tools/args.js";
import type { Toolset } from "../../tools/toolset.js";
import type { CallRecord } from "../../types/step-record.js";

/** What of the loop's options the open step's calls are checked against: its tools, its args limits. */
export interface CallSettings<Deps> {
  tools: Toolset<Deps>;
  argsLimits: ArgsLimits;
}

/** A human's edit as args in the model's form: JSON data within the loop's limits. */
export function editedArgs<Deps>(
  options: CallSettings<Deps>,
  record: CallRecord,
  given: unknown,
): unknown {
  const read = argsFromValue(given, options.argsLimits);
  if (read.ok) return read.args;
  throw new ResumeError(
    `the edited args of call ${record.toolCallId} are not valid: ${read.message}`,
  );
}

/**
 * A call's final args checked: completed with the schema's defaults (a human's edit that leaves
 * a defaulted field out gets it, as the model's args did) and the schema's output for them,
 * what `execute` will get, computed once, here.
 */
export async function checkedArgs<Deps>(
  options: CallSettings<Deps>,
  record: CallRecord,
  args: unknown,
  edited: boolean,
): Promise<{ args: unknown; parsed: unknown }> {
  const tool = options.tools.find(record.toolName);
  if (!tool) {
    throw new ResumeError(
      `tool ${record.toolName} is not in this loop's toolset (it has: ${options.tools.names().join(", ") || "no tools"})`,
    );
  }
  if (args === undefined) {
    throw new ResumeError(`call ${record.toolCallId} has no args; the state is damaged`);
  }
  const checked = await checkArgs(tool, args);
  if (checked.ok) return checked;
  const whose = edited ? "the edited args" : "the stored args";
  throw new ResumeError(`${whose} of call ${record.toolCallId} are not valid: ${checked.message}`);
}
