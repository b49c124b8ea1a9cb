/**
 * Tracing: `otelListener(tracer)` turns every run into OpenTelemetry spans with the GenAI
 * semantic conventions — `invoke_agent` per run, `chat` per model call, `execute_tool` per tool
 * call, a sub-agent's run under its parent's call — and the gate's verdict as `tollgate.gate.*`.
 * Here the spans go to an in-memory exporter and are printed as a tree; in an app, give the
 * tracer of your provider (OTLP exporter and all).
 *
 *   npx tsx examples/tracing.ts
 */
import { pathToFileURL } from "node:url";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { AgentLoop, type PreToolCallHook, tool } from "tollgate";
import { otelListener } from "tollgate/otel";
import { scriptedProvider } from "tollgate/testing";
import { z } from "zod";

const getTime = tool({
  name: "get_time",
  description: "The time in a city",
  input: z.object({ city: z.string() }),
  execute: ({ city }) => `12:00 in ${city}`,
});
const deleteFile = tool({
  name: "delete_file",
  description: "Deletes a file",
  input: z.object({ path: z.string() }),
  execute: () => "deleted",
});
const noDeletes: PreToolCallHook = (call) =>
  call.name === "delete_file" ? { block: "no deletes here" } : undefined;

export async function main(): Promise<ReadableSpan[]> {
  // An SDK tracer provider with an in-memory exporter (in an app: your OTLP exporter).
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  const tracer = tracerProvider.getTracer("tracing-example");

  // A sub-agent: its run becomes a span under the parent's execute_tool span.
  const clock = new AgentLoop({
    provider: scriptedProvider(
      [{ toolCalls: [{ name: "get_time", args: { city: "Lima" } }] }, { text: "12:00" }],
      { name: "acme", model: "acme-mini" },
    ),
    tools: [getTime],
  });

  const loop = new AgentLoop({
    provider: scriptedProvider(
      [
        {
          toolCalls: [
            { name: "clock", args: { prompt: "Time in Lima?" } },
            { name: "delete_file", args: { path: "/etc/hosts" } },
          ],
          usage: { inputTokens: 120, outputTokens: 30 },
        },
        {
          text: "It is 12:00 in Lima; I may not delete that file.",
          usage: { inputTokens: 200, outputTokens: 15 },
        },
      ],
      { name: "acme", model: "acme-large" },
    ),
    tools: [clock.asTool({ name: "clock", description: "Tells the time" }), deleteFile],
    preToolCall: [noDeletes],
    onEvent: otelListener(tracer, { agentName: "assistant" }),
  });
  const result = await loop.run("What time is it in Lima? Then delete /etc/hosts.");
  console.log(result.text);

  const spans = exporter.getFinishedSpans();
  printTree(spans);
  await tracerProvider.shutdown();
  return spans;
}

const byStart = (a: ReadableSpan, b: ReadableSpan) =>
  a.startTime[0] - b.startTime[0] || a.startTime[1] - b.startTime[1];

/** Prints spans as a tree (children by parent span id), with a few attributes each. */
function printTree(spans: ReadableSpan[]): void {
  const shown = [
    "gen_ai.usage.input_tokens",
    "gen_ai.usage.output_tokens",
    "tollgate.gate.verdict",
    "tollgate.gate.by",
    "tollgate.gate.reason",
    "tollgate.run.status",
  ];
  const print = (span: ReadableSpan, depth: number) => {
    const attributes = shown
      .filter((key) => span.attributes[key] !== undefined)
      .map((key) => `${key.split(".").at(-1)}=${span.attributes[key]}`);
    console.log(`${"  ".repeat(depth)}${span.name}  ${attributes.join(" ")}`.trimEnd());
    const children = spans.filter((s) => s.parentSpanContext?.spanId === span.spanContext().spanId);
    for (const child of children.sort(byStart)) print(child, depth + 1);
  };
  for (const root of spans.filter((span) => span.parentSpanContext === undefined)) print(root, 0);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await main();
