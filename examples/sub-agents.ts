/**
 * Agents as tools: a research agent delegates writing to a `writer` sub-agent, whose
 * `write_file` tool asks a human first. The sub-agent's pause pauses the research agent; the
 * paused state is plain JSON, and one `resume()` with the human's decision continues the
 * writer, then the researcher. Runs offline on stand-in models.
 *
 *   npx tsx examples/sub-agents.ts
 */
import { pathToFileURL } from "node:url";
import { AgentLoop, memoryRunStore, type RunResult, tool } from "tollgate";
import { functionProvider } from "tollgate/testing";
import { z } from "zod";

const files = new Map<string, string>();
/** The research agent's runs, shared by its loops (across processes: tollgate/redis or tollgate/postgres). */
const store = memoryRunStore();

/** Stand-in models that answer from the transcript: the turn depends on what came back. */
const lastMessage = (messages: { role: string }[]) => messages[messages.length - 1];
const usage = { inputTokens: 120, outputTokens: 30 };

function team() {
  const writeFile = tool({
    name: "write_file",
    description: "Write a file",
    input: z.object({ path: z.string(), content: z.string() }),
    needsApproval: true,
    execute: ({ path, content }) => {
      files.set(path, content);
      return `wrote ${content.length} characters to ${path}`;
    },
  });
  const writer = new AgentLoop({
    instructions: "You write files for the research agent.",
    provider: functionProvider((request) =>
      lastMessage(request.messages)?.role === "tool"
        ? { text: "Saved the notes to notes.md.", usage }
        : {
            toolCalls: [
              {
                id: "write-1",
                name: "write_file",
                args: { path: "notes.md", content: "# Agent loops\n- every call passes a gate" },
              },
            ],
            usage,
          },
    ),
    tools: [writeFile],
  });

  const search = tool({
    name: "search",
    description: "Search the web",
    input: z.object({ query: z.string() }),
    execute: ({ query }) => `3 results for "${query}"`,
  });
  const research = new AgentLoop({
    instructions: "You research topics and have the writer save your notes.",
    // The parent keeps the runs: a resume claims the state, the sub-run's with it, once.
    store,
    provider: functionProvider((request) => {
      const steps = request.messages.filter((message) => message.role === "tool").length;
      if (steps === 0) {
        return {
          toolCalls: [{ id: "search-1", name: "search", args: { query: "agent loops" } }],
          usage,
        };
      }
      if (steps === 1) {
        const prompt = "Save notes on agent loops to notes.md";
        return { toolCalls: [{ id: "delegate-1", name: "writer", args: { prompt } }], usage };
      }
      return { text: "Research done; the writer saved notes.md.", usage };
    }),
    tools: [
      search,
      // The writer as a tool: the research agent's gate decides whether it runs, the
      // writer's own gate decides its write_file.
      writer.asTool({ name: "writer", description: "Writes files; give it the task as a prompt" }),
    ],
  });
  return research;
}

export async function main(): Promise<{ paused: RunResult; done: RunResult; events: string[] }> {
  const events: string[] = [];
  const research = team();
  research.on("sub-run", (event) => {
    const inner = event.event;
    if (inner.type === "tool-decision") {
      events.push(`${event.toolName} › ${inner.toolName}: ${inner.verdict} by ${inner.by}`);
    }
  });

  const paused = await research.run("Research agent loops and save notes");
  for (const call of paused.pending ?? []) {
    console.log(
      `paused: ${call.toolName} ${JSON.stringify(call.args)} (in ${call.subRun?.path.join("/")}) needs approval`,
    );
  }

  // The state is JSON and the store holds it: show the human the pending call, resume later
  // (here with a new loop, as another process would). A decision carries the digest of the
  // call shown.
  const saved = JSON.stringify(paused.state);
  const [call] = paused.pending ?? [];
  if (!call) throw new Error("expected a pending call");
  const later = team();
  later.on("sub-run", (event) => {
    const inner = event.event;
    if (inner.type === "tool-decision" || inner.type === "tool-result") {
      events.push(
        `${event.toolName} › ${inner.toolName}: ${inner.type === "tool-decision" ? `${inner.verdict} by ${inner.by}` : inner.output}`,
      );
    }
  });
  const done = await later.resume(JSON.parse(saved), {
    [call.toolCallId]: { approve: true, digest: call.digest },
  });

  for (const line of events) console.log(line);
  console.log(`${done.status}: ${done.text}`);
  console.log(`notes.md: ${JSON.stringify(files.get("notes.md"))}`);
  const { inputTokens, outputTokens } = done.usage;
  console.log(`usage, both agents: ${inputTokens} input + ${outputTokens} output tokens`);
  return { paused, done, events };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await main();
