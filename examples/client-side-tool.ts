/**
 * Client-side tools: a tool without `execute` runs elsewhere, here in the user's browser. The
 * server's run pauses with `needs_results`, listing the call with its args; the browser runs
 * it (`navigator.geolocation`) and posts the result back; a new loop (another request, another
 * process) resumes the signed JSON state with it, and the store the loops share claims the
 * state, so a repeated post runs nothing. Runs offline: the "browser" is a function
 * and the model is scripted.
 *
 *   npx tsx examples/client-side-tool.ts
 */
import { pathToFileURL } from "node:url";
import {
  AgentLoop,
  type ExternalCall,
  type ExternalResult,
  memoryRunStore,
  type RunResult,
  tool,
} from "tollgate";
import { scriptedProvider } from "tollgate/testing";
import { z } from "zod";

// No execute: the model may call it and the gate decides, but it runs in the browser.
const getLocation = tool({
  name: "get_location",
  description: "The user's current position, from their browser",
  input: z.object({ highAccuracy: z.boolean().default(false) }),
  // Checked when the browser's answer comes back: a result that does not fit is refused.
  output: z.object({ latitude: z.number(), longitude: z.number(), accuracyM: z.number() }),
});
const getWeather = tool({
  name: "get_weather",
  description: "Current weather at a position",
  input: z.object({ latitude: z.number(), longitude: z.number() }),
  execute: ({ latitude, longitude }) => ({ latitude, longitude, tempC: 21, sky: "clear" }),
});

/** Shared by every request's loop (across processes: tollgate/redis or tollgate/postgres). */
const store = memoryRunStore();

/** The server's loop; each request builds its own, as another process would. */
function serverLoop(provider: ReturnType<typeof scriptedProvider>): AgentLoop {
  return new AgentLoop({
    provider,
    tools: [getLocation, getWeather],
    // The state travels through the browser: what resumes is the store's own copy (a changed
    // one is refused), signed; the store claims it, so a state posted twice resumes once.
    signingKey: "server-secret",
    store,
  });
}

/** The browser's side: runs each client-side call and answers `{ result }` or `{ error }`. */
async function browser(
  calls: ExternalCall[],
  permission: "granted" | "denied",
): Promise<Record<string, ExternalResult>> {
  const answers: Record<string, ExternalResult> = {};
  for (const call of calls) {
    // In a page: navigator.geolocation.getCurrentPosition(resolve, reject, options)
    answers[call.toolCallId] =
      permission === "granted"
        ? { result: { latitude: 59.91, longitude: 10.75, accuracyM: 30 } }
        : { error: "the user denied access to their location" };
    console.log(
      `the browser answered ${call.toolName}: ${JSON.stringify(answers[call.toolCallId])}`,
    );
  }
  return answers;
}

async function ask(permission: "granted" | "denied", reply: string): Promise<RunResult> {
  const provider = scriptedProvider([
    { toolCalls: [{ id: "loc-1", name: "get_location", args: {} }] },
    ...(permission === "granted"
      ? [{ toolCalls: [{ name: "get_weather", args: { latitude: 59.91, longitude: 10.75 } }] }]
      : []),
    { text: reply },
  ]);

  // Request 1: the run pauses; the state and the calls go to the browser.
  const paused = await serverLoop(provider).run("What's the weather where I am?");
  if (paused.status !== "needs_results") throw new Error(`expected a pause, got ${paused.status}`);
  for (const call of paused.external) {
    console.log(
      `paused: ${paused.status}; the browser runs ${call.toolName} ${JSON.stringify(call.args)}`,
    );
  }
  const toBrowser = JSON.stringify({ state: paused.state, calls: paused.external });

  // Request 2: the browser posts its answers back with the state; a new loop resumes.
  const { state, calls } = JSON.parse(toBrowser);
  const answers = await browser(calls, permission);
  const done = await serverLoop(provider).resume(state, answers);
  console.log(`${done.status}: ${done.text}`);
  provider.assertComplete();
  return done;
}

export async function main(): Promise<{ granted: RunResult; denied: RunResult }> {
  const granted = await ask("granted", "It is 21 °C and clear where you are.");
  const denied = await ask("denied", "I can't see your location; which city are you in?");
  return { granted, denied };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await main();
