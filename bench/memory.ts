/**
 * Measurement 4: heap per paused run and the size of a serialized `RunState` per step. Runs in
 * a child process (the compiled bench again, with `--memory-child`) started with
 * `--expose-gc`, so the heap is measured after full collections and nothing else of the bench
 * is on it.
 */
import { AgentLoop, type ModelResponse, type Provider, type RunResult, tool } from "tollgate";
import { z } from "zod";
import { benchChild } from "./compile.js";
import { expectEqual } from "./harness.js";

/** What the child measured. */
export interface MemoryResult {
  pausedRuns: number;
  /** Heap used before the runs and with all of them held, in bytes (after full GCs). */
  heapBefore: number;
  heapAfter: number;
  /** Bytes of `JSON.stringify(result.state)` of a run paused at step 0, 10 and 100. */
  stateBytes: { step: number; bytes: number }[];
}

/** Starts the child (`node --expose-gc <this bench> --memory-child=<runs>`) and reads its JSON. */
export function measureMemory(pausedRuns: number): MemoryResult {
  const stdout = benchChild([`--memory-child=${pausedRuns}`], ["--expose-gc"], 120_000);
  return JSON.parse(stdout) as MemoryResult;
}

/**
 * A loop whose model asks for one call per step; the policy allows the calls of steps before
 * `pauseAt` and answers NEEDS_APPROVAL at `pauseAt`, so every run pauses there. The gate is the
 * one of measurement 1 (2 hooks + policy).
 */
function pausingLoop(pauseAt: number) {
  const usage = { inputTokens: 1, outputTokens: 1, totalTokens: 2 };
  const responses: ModelResponse[] = Array.from({ length: pauseAt + 1 }, (_, step) => ({
    parts: [
      { type: "tool-call", id: `call_${step}`, name: "get_weather", args: '{"city":"Oslo"}' },
    ],
    finishReason: "tool-calls",
    usage,
  }));
  const provider: Provider = {
    name: "bench",
    model: "bench",
    generate: async (request) => responses[(request.messages.length - 1) / 2]!,
  };
  return new AgentLoop({
    provider,
    tools: [
      tool({
        name: "get_weather",
        description: "Current weather for a city",
        input: z.object({ city: z.string() }),
        execute: async ({ city }) => ({ city, tempC: 21 }),
      }),
    ],
    maxSteps: pauseAt + 2,
    preToolCall: [
      (call) => (call.name === "rm_rf" ? { block: "not here" } : undefined),
      (call) => (call.step > 10_000 ? { stop: true } : undefined),
    ],
    policy: {
      decideToolCall: ({ step }) => (step < pauseAt ? "ALLOW" : "NEEDS_APPROVAL"),
      endsRun: () => false,
    },
  });
}

async function pausedRun(loop: AgentLoop, pauseAt: number): Promise<RunResult> {
  const result = await loop.run("What's the weather in Oslo?");
  expectEqual("memory: status", result.status, "needs_approval");
  expectEqual("memory: pending", result.pending?.length, 1);
  expectEqual("memory: steps", result.steps.length, pauseAt + 1);
  return result;
}

/** The child's work: prints the `MemoryResult` as JSON. */
export async function memoryChild(pausedRuns: number): Promise<void> {
  process.stdout.write(JSON.stringify(await measure(pausedRuns)));
}

async function measure(pausedRuns: number): Promise<MemoryResult> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error("memory child: run with --expose-gc");
  const heap = () => {
    gc();
    gc();
    return process.memoryUsage().heapUsed;
  };
  const loop = pausingLoop(0);
  for (let i = 0; i < 100; i++) await pausedRun(loop, 0);
  const held: RunResult[] = [];
  const heapBefore = heap();
  for (let i = 0; i < pausedRuns; i++) held.push(await pausedRun(loop, 0));
  const heapAfter = heap();
  expectEqual("memory: runs held", held.length, pausedRuns);
  const stateBytes = [];
  for (const step of [0, 10, 100]) {
    const result = await pausedRun(pausingLoop(step), step);
    stateBytes.push({ step, bytes: JSON.stringify(result.state).length });
  }
  return { pausedRuns, heapBefore, heapAfter, stateBytes };
}
