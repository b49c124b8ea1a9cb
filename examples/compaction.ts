/**
 * Steering each step: `prepareStep` trims old messages before each model call (the model sees
 * the task and the latest two steps; the transcript keeps everything), switches to a cheaper
 * setting for later steps, and `stopWhen` ends the run after a step budget.
 *
 *   npx tsx examples/compaction.ts
 */
import { pathToFileURL } from "node:url";
import type { Message, RunResult } from "tollgate";
import { AgentLoop, stepCountIs, tool } from "tollgate";
import { scriptedProvider } from "tollgate/testing";
import { z } from "zod";

const readPage = tool({
  name: "read_page",
  description: "Read one page of a long report",
  input: z.object({ page: z.number() }),
  execute: ({ page }) => `page ${page}: ${"lorem ipsum ".repeat(20)}`,
});

/** The task, then the latest `steps` steps (each an assistant message and its tool message). */
function compact(messages: Message[], steps: number): Message[] {
  const [task, ...rest] = messages;
  return rest.length <= steps * 2 ? messages : [task!, ...rest.slice(-steps * 2)];
}

export async function main(): Promise<RunResult> {
  // A model that reads page after page.
  const provider = scriptedProvider(
    [1, 2, 3, 4, 5, 6].map((page) => ({
      toolCalls: [{ name: "read_page", args: { page } }],
    })),
  );
  const loop = new AgentLoop({
    provider,
    tools: [readPage],
    policy: {
      prepareStep: ({ stepIndex, messages }) => ({
        messages: compact(messages, 2),
        ...(stepIndex >= 3 && { settings: { maxOutputTokens: 200 } }),
      }),
    },
    stopWhen: [stepCountIs(5)],
  });
  const result = await loop.run("Summarise the report");
  provider.requests.forEach((request, step) => {
    console.log(`step ${step}: sent ${request.messages.length} messages`);
  });
  if (result.status === "stopped_by_condition") {
    console.log(`status ${result.status} by ${result.stoppedBy.name}`);
  }
  console.log(`transcript: ${result.messages.length} messages`);
  console.log(
    `step 4 record: messages ${result.steps[4]!.messages}, settings ${JSON.stringify(result.steps[4]!.settings)}`,
  );
  return result;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await main();
