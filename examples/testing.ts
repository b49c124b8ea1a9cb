/**
 * Testing with fakes: `scriptedProvider` plays a script turn by turn and fails loudly off
 * script; `functionProvider` answers from your own logic. Both record every request in
 * `.requests`. The checks use node:assert here; they read the same in vitest or node:test.
 *
 *   npx tsx examples/testing.ts
 */
import assert from "node:assert/strict";
import { pathToFileURL } from "node:url";
import type { Provider } from "tollgate";
import { AgentLoop, contentText, tool } from "tollgate";
import { functionProvider, scriptedProvider } from "tollgate/testing";
import { z } from "zod";

// The agent under test: a loop built around whatever provider it is given.
const lookupOrder = tool({
  name: "lookup_order",
  description: "The status of an order",
  input: z.object({ orderId: z.string() }),
  execute: ({ orderId }) => ({ orderId, status: "shipped" }),
});
const supportAgent = (provider: Provider) =>
  new AgentLoop({ provider, tools: [lookupOrder], instructions: "You are a support agent." });

export async function main(): Promise<string[]> {
  const passed: string[] = [];
  const check = async (name: string, body: () => Promise<void>) => {
    await body();
    passed.push(name);
    console.log(`ok - ${name}`);
  };

  await check("scripted: the tool result reaches the model", async () => {
    const provider = scriptedProvider([
      { toolCalls: [{ name: "lookup_order", args: { orderId: "A-1" } }] },
      { text: "Order A-1 has shipped." },
    ]);
    const result = await supportAgent(provider).run("Where is order A-1?");

    assert.equal(result.status, "completed");
    assert.equal(result.text, "Order A-1 has shipped.");
    provider.assertComplete(); // every scripted turn was used
    const second = provider.requests[1]!; // what the loop sent the model for step 1
    assert.equal(second.system, "You are a support agent.");
    assert.deepEqual(second.messages.at(-1), {
      role: "tool",
      results: [
        {
          toolCallId: "call_0_0",
          toolName: "lookup_order",
          output: { orderId: "A-1", status: "shipped" },
          isError: false,
        },
      ],
    });
  });

  await check("scripted: bad args are fed back, the model corrects itself", async () => {
    const provider = scriptedProvider([
      { toolCalls: [{ name: "lookup_order", args: "{not json" }] }, // a string is sent verbatim
      { toolCalls: [{ name: "lookup_order", args: { orderId: "A-2" } }] },
      { text: "Shipped." },
    ]);
    const result = await supportAgent(provider).run("Where is order A-2?");
    assert.deepEqual(
      result.steps.map((step) => step.calls[0]?.verdict),
      ["invalid", "allow", undefined],
    );
  });

  await check("scripted: a provider error reaches the caller unchanged", async () => {
    const outage = new Error("503 from upstream");
    const provider = scriptedProvider([{ error: outage }]);
    await assert.rejects(supportAgent(provider).run("Hi"), (error) => error === outage);
  });

  await check("scripted: running past the script fails, naming the step", async () => {
    const provider = scriptedProvider([
      { toolCalls: [{ name: "lookup_order", args: { orderId: "A-3" } }] },
    ]);
    await assert.rejects(supportAgent(provider).run("Hi"), /called for step 1/);
  });

  await check("function: answers from the request, streaming", async () => {
    const provider = functionProvider(
      (request) => {
        const last = request.messages.at(-1)!;
        if (last.role === "user") {
          const orderId = /[A-Z]-\d+/.exec(contentText(last.content))?.[0] ?? "?";
          return { toolCalls: [{ name: "lookup_order", args: { orderId } }] };
        }
        return { text: "It has shipped." };
      },
      { stream: true },
    );
    const agent = supportAgent(provider);
    const chunks: string[] = [];
    agent.on("text-delta", (event) => {
      chunks.push(event.text);
    });
    const result = await agent.run("Where is B-7?");

    assert.equal(result.steps[0]!.calls[0]!.rawArgs, '{"orderId":"B-7"}');
    assert.equal(chunks.join(""), "It has shipped.");
    assert.ok(chunks.length > 1); // it really streamed
    assert.equal(provider.requests.length, 2);
  });

  console.log(`${passed.length} checks passed`);
  return passed;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await main();
