/**
 * Errors that tell the truth, early: a resume refused before its stream's first event (so an
 * HTTP handler answers 409, not a 200 that fails), a double submit in one process told as such,
 * and a forgotten `await` told as such.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import {
  AgentLoop,
  type AgentLoopOptions,
  type ApprovalDecisions,
  type LoopEvent,
  memoryRunStore,
  ResumeError,
  toEventStream,
  tool,
} from "tollgate";
import { readEventStream } from "tollgate/event-stream";
import { scriptedProvider } from "tollgate/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { deferred } from "../support/deferred.js";

type Turns = Parameters<typeof scriptedProvider>[0];

/** `send` needs approval and, once approved, waits for `release` before it returns. */
function mailAgent(turns: Turns, options: Partial<AgentLoopOptions> = {}) {
  const ran: string[] = [];
  const started = deferred();
  const release = deferred();
  const send = tool({
    name: "send",
    input: z.object({ to: z.string() }),
    needsApproval: true,
    execute: async ({ to }) => {
      ran.push(`send ${to}`);
      started.resolve();
      await release.promise;
      return `sent to ${to}`;
    },
  });
  const provider = scriptedProvider(turns);
  const make = (extra: Partial<AgentLoopOptions> = {}) =>
    new AgentLoop({ provider, tools: [send], ...options, ...extra });
  return { make, ran, started, release };
}

const MAIL_BOB: Turns = [
  { toolCalls: [{ name: "send", args: { to: "bob" }, id: "s1" }] },
  { text: "Sent." },
];
const APPROVE: ApprovalDecisions = { s1: { approve: true } };

/**
 * The handler the README shows: a refused resume is a 409 answered before any header of a
 * stream; an accepted one streams its events.
 */
async function decide(loop: AgentLoop, runId: string, decisions: ApprovalDecisions) {
  const events = loop.resumeStream(runId, decisions);
  try {
    await events.ready();
  } catch (error) {
    if (!(error instanceof ResumeError)) throw error;
    return Response.json({ error: error.message }, { status: 409 });
  }
  return toEventStream(events);
}

describe("resumeStream() refuses before its first event", () => {
  let server: Server;
  let base: string;
  let handle: (runId: string, decisions: ApprovalDecisions) => Promise<Response>;
  /** The status of every response the server began, in the order it began them. */
  const began: number[] = [];

  beforeAll(async () => {
    server = createServer(async (req, res) => {
      let body = "";
      for await (const chunk of req) body += chunk;
      let response: Response;
      try {
        response = await handle(req.url!.slice(1), JSON.parse(body) as ApprovalDecisions);
      } catch (error) {
        response = new Response(String(error), { status: 500 });
      }
      began.push(response.status);
      response.headers.forEach((value, name) => {
        res.setHeader(name, value);
      });
      res.writeHead(response.status);
      res.flushHeaders();
      pipeline(Readable.fromWeb(response.body as never), res).catch(() => {});
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const post = (runId: string, decisions: ApprovalDecisions) =>
    fetch(`${base}/${runId}`, { method: "POST", body: JSON.stringify(decisions) });

  it("over HTTP: a double submit answers 409 with no 200 first, while the first resume streams on; a stale one too", async () => {
    const store = memoryRunStore();
    const agent = mailAgent(MAIL_BOB, { store });
    const loop = agent.make();
    handle = (runId, decisions) => decide(loop, runId, decisions);
    const paused = await loop.run("Mail Bob", { runId: "run-1" });
    expect(paused.status).toBe("needs_approval");

    const first = await post("run-1", APPROVE);
    expect(first.status).toBe(200);
    await agent.started.promise;
    const second = await post("run-1", APPROVE);
    expect(second.status).toBe(409);
    expect(second.headers.get("content-type")).toMatch(/^application\/json/);
    const { error } = (await second.json()) as { error: string };
    expect(error).toMatch(/^run run-1 is still running in this process \(a resume or run/);
    expect(error).not.toMatch(/another process/);

    agent.release.resolve();
    const events = [];
    for await (const event of readEventStream(first)) events.push(event.type);
    expect(events[0]).toBe("run-start");
    expect(events.at(-1)).toBe("run-finish");
    expect(agent.ran).toEqual(["send bob"]);

    // Submitted again once the run has finished: a stale decision, refused the same way.
    const stale = await post("run-1", APPROVE);
    expect(stale.status).toBe(409);
    expect(((await stale.json()) as { error: string }).error).toBe(
      'nothing to resume: run run-1 ended with status "completed"',
    );
    expect(began).toEqual([200, 409, 409]);
    expect(agent.ran).toEqual(["send bob"]);
  });
});

describe("ready()", () => {
  it("rejects with the ResumeError of a state resumed twice, and the first next() rejects with it too", async () => {
    const agent = mailAgent(MAIL_BOB, { trustState: true });
    agent.release.resolve();
    const loop = agent.make();
    const paused = await loop.run("Mail Bob");
    await loop.resume(paused.state, APPROVE);
    const events = loop.resumeStream(paused.state, APPROVE);
    const error = await events.ready().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResumeError);
    expect((error as Error).message).toMatch(/was already resumed; a state resumes once/);
    await expect(events.next()).rejects.toBe(error);
    await expect(events.next()).resolves.toEqual({ value: undefined, done: true });
    expect(agent.ran).toEqual(["send bob"]);
  });

  it("resolves with the stream once the resume's checks passed; its events follow in order", async () => {
    const agent = mailAgent(MAIL_BOB, { trustState: true });
    agent.release.resolve();
    const loop = agent.make();
    const paused = await loop.run("Mail Bob");
    const events = loop.resumeStream(paused.state, APPROVE);
    const pending = events.next(); // asked for before the checks end: it waits its turn
    expect(await events.ready()).toBe(events);
    const seen: LoopEvent[] = [(await pending).value as LoopEvent];
    for await (const event of events) seen.push(event);
    expect(seen[0]).toMatchObject({ type: "run-start", resumed: true });
    expect(seen.at(-1)).toMatchObject({ type: "run-finish", status: "completed" });
    // stream() has it too: bad input rejects ready(), and a good run starts.
    await expect(loop.stream(42 as never).ready()).rejects.toThrow(TypeError);
  });

  it("a reader that stops while the checks run abandons the run they start (its signal aborts)", async () => {
    const agent = mailAgent(MAIL_BOB, { trustState: true });
    const loop = agent.make();
    const paused = await loop.run("Mail Bob");
    const errors: unknown[] = [];
    loop.on("run-error", (event) => errors.push(event.error));
    const events = loop.resumeStream(paused.state, APPROVE);
    const ready = events.ready();
    await events.return(undefined);
    expect(await ready).toBe(events);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ name: "AbortError", message: "the run was abandoned" });
    await expect(events.next()).resolves.toEqual({ value: undefined, done: true });
  });
});

describe("two resumes of one run at once in one process", () => {
  it("the second is told the run is being resumed here (not that another process holds it), also from another loop over the store", async () => {
    const store = memoryRunStore();
    const agent = mailAgent(MAIL_BOB, { store });
    const paused = await agent.make().run("Mail Bob", { runId: "run-2" });
    expect(paused.status).toBe("needs_approval");
    const first = agent.make().resume("run-2", APPROVE);
    await agent.started.promise;
    for (const loop of [agent.make(), agent.make({ trustState: true })]) {
      const error = await loop.resume("run-2", APPROVE).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ResumeError);
      expect((error as Error).message).toBe(
        "run run-2 is still running in this process (a resume or run of it started here has not ended), so this resume was refused and nothing ran; the first goes on. A double submit? Answer the second request with a conflict (HTTP 409); once the run pauses again, decide its new pending calls",
      );
      expect((error as ResumeError).retryable).toBe(true);
    }
    agent.release.resolve();
    await expect(first).resolves.toMatchObject({ status: "completed" });
    expect(agent.ran).toEqual(["send bob"]);
  });
  it("after an abort here, while its lease runs out, it says the run was aborted in this process", async () => {
    const store = memoryRunStore({ leaseMs: 60_000 });
    const agent = mailAgent(MAIL_BOB, { store });
    await agent.make().run("Mail Bob", { runId: "run-4" });
    const controller = new AbortController();
    const aborted = agent.make().resume("run-4", APPROVE, { signal: controller.signal });
    await agent.started.promise;
    controller.abort();
    await expect(aborted).rejects.toMatchObject({ name: "AbortError" });
    const error = await agent
      .make()
      .resume("run-4", APPROVE)
      .catch((e: unknown) => e);
    expect((error as Error).message).toBe(
      "run run-4 is still running in this process: it was aborted here, and a tool it started may still run until its lease runs out; resume it from its checkpoint then",
    );
    agent.release.resolve();
  });
});

describe("a forgotten await", () => {
  it("a promise for the state or the decisions says to await it, and nothing is used up", async () => {
    const agent = mailAgent(MAIL_BOB, { trustState: true });
    agent.release.resolve();
    const loop = agent.make();
    const paused = await loop.run("Mail Bob");
    const saved = Promise.resolve(JSON.parse(JSON.stringify(paused.state)));
    const refusals: [Promise<unknown>, string][] = [
      [
        loop.resume(saved as never, APPROVE),
        "resume() got a promise, not a state: await it first, loop.resume(await saved, decisions) (from a run, resume result.state, or the run id with a store)",
      ],
      [
        loop.resumeStream(saved as never, APPROVE).ready(),
        "resume() got a promise, not a state: await it first, loop.resume(await saved, decisions) (from a run, resume result.state, or the run id with a store)",
      ],
      [
        loop.resume(paused.state, Promise.resolve(APPROVE) as never),
        "resume() got a promise for the decisions: await it first, loop.resume(state, await decisions)",
      ],
      [
        loop.resume(paused as never, APPROVE),
        "resume() got a run's result, not its state: resume result.state (or, with a store, result.state.runId)",
      ],
    ];
    for (const [refused, message] of refusals) {
      const error = await refused.catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ResumeError);
      expect((error as Error).message).toBe(message);
    }
    await expect(loop.resume(await saved, APPROVE)).resolves.toMatchObject({
      status: "completed",
    });
    expect(agent.ran).toEqual(["send bob"]);
  });
});
