/**
 * Measurement 7: what tracing costs, and that the core carries none of it. The same tool step
 * as section 1 (a fake model asks for one `get_weather` call per step, 20 steps, then answers),
 * with no listener, with an empty `onEvent` (events built and frozen, nothing done with them),
 * and with `otelListener` on a real SDK tracer (`BasicTracerProvider`) whose processor drops
 * the ended spans, so spans are created, filled and ended, and nothing is exported or kept.
 */
import { join } from "node:path";
import type { Context } from "@opentelemetry/api";
import {
  BasicTracerProvider,
  type ReadableSpan,
  type Span,
  type SpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { build } from "esbuild";
import { AgentLoop, type LoopListener, type ModelResponse, type Provider, tool } from "tollgate";
import { otelListener } from "tollgate/otel";
import { z } from "zod";
import { ROOT } from "./compile.js";
import { type Contender, expectEqual } from "./harness.js";

/** Steps per run; the unit reported is one tool step. */
export const OTEL_STEPS = 20;

/** The row names, in the report's order. */
export const OTEL_ROWS = {
  none: "tollgate, no listener",
  empty: "tollgate, empty onEvent",
  otel: "tollgate + otelListener (SDK tracer, spans dropped)",
} as const;

/** A span processor that counts ended spans and keeps none. */
class CountingProcessor implements SpanProcessor {
  ended = 0;
  onStart(_span: Span, _context: Context): void {}
  onEnd(_span: ReadableSpan): void {
    this.ended++;
  }
  forceFlush(): Promise<void> {
    return Promise.resolve();
  }
  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}

function contender(name: string, onEvent: LoopListener | undefined, check?: () => void): Contender {
  let executed = 0;
  const responses: ModelResponse[] = Array.from({ length: OTEL_STEPS + 1 }, (_, step) => ({
    parts:
      step < OTEL_STEPS
        ? [
            {
              type: "tool-call" as const,
              id: `call_${step}`,
              name: "get_weather",
              args: '{"city":"Oslo"}',
            },
          ]
        : [{ type: "text" as const, text: "done" }],
    finishReason: step < OTEL_STEPS ? "tool-calls" : "stop",
    usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
  }));
  const provider: Provider = {
    name: "bench",
    model: "bench",
    generate: async (request) => responses[(request.messages.length - 1) / 2]!,
  };
  const getWeather = tool({
    name: "get_weather",
    description: "Current weather for a city",
    input: z.object({ city: z.string() }),
    execute: async ({ city }) => {
      executed++;
      return { city, tempC: 21 };
    },
  });
  const loop = new AgentLoop({
    provider,
    tools: [getWeather],
    maxSteps: OTEL_STEPS + 1,
    ...(onEvent ? { onEvent } : {}),
  });
  return {
    name,
    units: OTEL_STEPS,
    async run() {
      const result = await loop.run("What's the weather in Oslo?");
      expectEqual(`${name}: status`, result.status, "completed");
      expectEqual(`${name}: tool executions`, executed, OTEL_STEPS);
      executed = 0;
      check?.();
    },
  };
}

/** The three rows: no listener, an empty listener, and otelListener on a real tracer. */
export function otelContenders(): Contender[] {
  const processor = new CountingProcessor();
  const tracer = new BasicTracerProvider({ spanProcessors: [processor] }).getTracer("bench");
  // Per run: one invoke_agent, 21 chat and 20 execute_tool spans.
  const spansPerRun = 1 + (OTEL_STEPS + 1) + OTEL_STEPS;
  return [
    contender(OTEL_ROWS.none, undefined),
    contender(OTEL_ROWS.empty, () => {}),
    contender(OTEL_ROWS.otel, otelListener(tracer), () => {
      expectEqual(`${OTEL_ROWS.otel}: spans ended`, processor.ended, spansPerRun);
      processor.ended = 0;
    }),
  ];
}

/**
 * Bundles the core entry (src/index.ts) as section 5 does and lists the inputs that are
 * tracing code: any file under src/otel/ or from an `@opentelemetry/*` package. Empty when the
 * core carries none.
 */
export async function otelInCore(outDir: string): Promise<{ inputs: number; otel: string[] }> {
  const result = await build({
    entryPoints: [join(ROOT, "src/index.ts")],
    bundle: true,
    minify: true,
    format: "esm",
    platform: "node",
    target: "es2022",
    external: ["zod", "zod/*"],
    outfile: join(outDir, "tollgate-core-otel-check.mjs"),
    write: false,
    metafile: true,
    logLevel: "silent",
    tsconfig: join(ROOT, "tsconfig.json"),
  });
  const inputs = Object.keys(result.metafile.inputs);
  return {
    inputs: inputs.length,
    otel: inputs.filter((path) => /src\/otel\/|@opentelemetry/.test(path)),
  };
}
