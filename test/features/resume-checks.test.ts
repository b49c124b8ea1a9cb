import {
  AgentLoop,
  type AgentLoopOptions,
  type CallRecord,
  type LoopEvent,
  type Message,
  memoryRunStore,
  ResumeError,
  type RunState,
  type RunStore,
  tool,
} from "tollgate";
import { scriptedProvider } from "tollgate/testing";
import { describe, expect, it } from "vitest";
import { z } from "zod";

/**
 * Every check `resume()` makes before anything runs, one wrong input at a time, each with the
 * exact `ResumeError` message (the message tells the user what to do) and nothing run; and
 * what a right resume runs, records and emits.
 */

type Turns = Parameters<typeof scriptedProvider>[0];

/** `send` needs approval, `note` does not; every execution is logged in `ran`. */
function mailAgent(turns: Turns, options: Partial<AgentLoopOptions> = {}) {
  const ran: string[] = [];
  const events: LoopEvent[] = [];
  const send = tool({
    name: "send",
    input: z.object({ to: z.string().email(), body: z.string().default("") }),
    needsApproval: true,
    execute: ({ to, body }) => {
      ran.push(body ? `send ${to} ${body}` : `send ${to}`);
      return `sent to ${to}`;
    },
  });
  const note = tool({
    name: "note",
    input: z.object({ text: z.string() }),
    execute: ({ text }) => {
      ran.push(`note ${text}`);
      return "noted";
    },
  });
  const provider = scriptedProvider(turns);
  const make = (extra: Partial<AgentLoopOptions> = {}) =>
    new AgentLoop({
      provider,
      tools: [send, note],
      onEvent: (event) => events.push(event),
      ...options,
      ...extra,
    });
  return { make, ran, events, send, note };
}

const BOB = { to: "bob@example.com" };

/** The model says something, notes (runs at once) and asks to send (waits for approval). */
const pauseTurn = {
  text: "Noting it, then mailing Bob.",
  toolCalls: [
    { id: "n1", name: "note", args: { text: "draft" } },
    { id: "s1", name: "send", args: BOB },
  ],
};

/** A run paused on `s1` (its `n1` ran); `ran` and `events` are cleared for the resume. */
async function pausedMail(options: Partial<AgentLoopOptions> = {}, turns: Turns = [pauseTurn]) {
  const agent = mailAgent([...turns, { text: "done" }], options);
  const result = await agent.make().run("mail bob");
  expect(result.status).toBe("needs_approval");
  agent.ran.length = 0;
  agent.events.length = 0;
  return { ...agent, result, state: result.state };
}

const copy = <T>(value: T): T => JSON.parse(JSON.stringify(value));
const HEX = "0123456789abcdef".repeat(4);

/** The ResumeError a resume rejects with (fails the test if it resolves or throws another error). */
async function refusal(resuming: Promise<unknown>): Promise<string> {
  const error = await resuming.then(
    () => new Error("the resume did not reject"),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ResumeError);
  return (error as Error).message;
}

/** Asserts the exact message, and that no tool ran and no event was emitted. */
async function refused(
  agent: { ran: string[]; events: LoopEvent[] },
  resuming: Promise<unknown>,
  message: string,
): Promise<void> {
  expect(await refusal(resuming)).toBe(message);
  expect(agent.ran).toEqual([]);
  expect(agent.events).toEqual([]);
}

const ofType = <T extends LoopEvent["type"]>(events: LoopEvent[], type: T) =>
  events.filter((e): e is Extract<LoopEvent, { type: T }> => e.type === type);
const toolResults = (messages: Message[]) =>
  messages.flatMap((m) => (m.role === "tool" ? m.results : []));

/** The open step's calls of a state, for editing a copy. */
const openCalls = (state: RunState) => state.steps[state.steps.length - 1]!.calls;
const lastAssistant = (state: RunState) => {
  const last = state.messages[state.messages.length - 1]!;
  if (last.role !== "assistant") throw new Error("the state does not end with the assistant");
  return last;
};

describe("trust: a loop with a signingKey", () => {
  it("refuses a state without a signature", async () => {
    const paused = await pausedMail();
    await refused(
      paused,
      paused
        .make({ signingKey: "k", allowReplay: true })
        .resume(copy(paused.state), { s1: { approve: true } }),
      "the state is not signed, and this loop (it has a signingKey) only resumes signed states",
    );
  });

  it("refuses a signature that is not 64 hex digits, before comparing it", async () => {
    const paused = await pausedMail({ signingKey: "k", allowReplay: true });
    const good = paused.state.signature!;
    // An array holding the right signature reads as it in a regular expression: it is still no signature.
    const wrong = [`f${good}`, `${good}f`, good.slice(1), good.toUpperCase(), 42, [good]];
    for (const signature of wrong) {
      const state = { ...copy(paused.state), signature } as RunState;
      await refused(
        paused,
        paused.make().resume(state, { s1: { approve: true } }),
        "the state's signature is not a signature (64 hex digits)",
      );
    }
  });

  it("refuses a signature made with another key or over other content", async () => {
    const paused = await pausedMail({ signingKey: "k", allowReplay: true });
    const message =
      "the state's signature does not match: it was changed after it was written, or signed with another key";
    await refused(
      paused,
      paused.make({ signingKey: "other" }).resume(copy(paused.state), { s1: { approve: true } }),
      message,
    );
    const tampered = copy(paused.state);
    openCalls(tampered)[1]!.args = { to: "mallory@example.com" };
    await refused(paused, paused.make().resume(tampered, { s1: { approve: true } }), message);
  });

  it("a loop without the key refuses a signed state", async () => {
    const paused = await pausedMail({ signingKey: "k", allowReplay: true });
    await refused(
      paused,
      paused.make({ signingKey: undefined }).resume(copy(paused.state), { s1: { approve: true } }),
      "the state is signed; give the loop the signingKey it was signed with",
    );
  });

  it("a valid signature is enough: no digests, no trustState", async () => {
    const paused = await pausedMail({ signingKey: "k", allowReplay: true });
    const result = await paused.make().resume(copy(paused.state), { s1: { approve: true } });
    expect(result.status).toBe("completed");
    expect(paused.ran).toEqual(["send bob@example.com"]);
  });
});

describe("trust: digests, for a state passed by value", () => {
  const untrusted = (count: string) =>
    `this state was passed by value without a signature, so it cannot be trusted as it is (${count}). ` +
    "Sign states (AgentLoop signingKey), resume by runId from the loop's store, give each decision the digest of its pending call from your own record of `pending` ({ approve, digest }), " +
    "or, if the state never left your own process or storage, set trustState: true on the loop";

  it("with no decisions at all (none given, or not an object) it says so", async () => {
    const paused = await pausedMail();
    const loop = paused.make();
    await refused(
      paused,
      loop.resume(copy(paused.state), {}),
      untrusted("no decisions were given"),
    );
    for (const decisions of [null, [{ approve: true }], "s1"]) {
      await refused(
        paused,
        loop.resume(copy(paused.state), decisions as never),
        untrusted("no decisions were given"),
      );
    }
  });

  it("counts the decisions that carry no digest", async () => {
    const paused = await pausedMail();
    await refused(
      paused,
      paused.make().resume(copy(paused.state), { s1: { approve: true } }),
      untrusted("1 of 1 decisions carry no digest"),
    );
    const two = await pausedMail({}, [
      {
        toolCalls: [
          { id: "s1", name: "send", args: BOB },
          { id: "s2", name: "send", args: { to: "carol@example.com" } },
        ],
      },
    ]);
    const digest = two.result.pending![0]!.digest;
    await refused(
      two,
      two.make().resume(copy(two.state), { s1: { approve: true, digest }, s2: { approve: true } }),
      untrusted("1 of 2 decisions carry no digest"),
    );
  });

  it("every decision with its pending call's digest resumes the state", async () => {
    const paused = await pausedMail({ allowReplay: true });
    const [pending] = paused.result.pending!;
    const result = await paused
      .make()
      .resume(copy(paused.state), { s1: { approve: true, digest: pending!.digest } });
    expect(result.status).toBe("completed");
    expect(paused.ran).toEqual(["send bob@example.com"]);
  });

  it("a digest of another call or state does not approve", async () => {
    const paused = await pausedMail({ allowReplay: true });
    await refused(
      paused,
      paused.make().resume(copy(paused.state), { s1: { approve: true, digest: HEX } }),
      "the decision for call s1 was made for other args, another call or another state (digest mismatch); nothing ran",
    );
  });

  it("digests vouch only for a state that waits for approval, not a running checkpoint", async () => {
    const { checkpoints, agent } = await crashedRun();
    await refused(
      agent,
      agent
        .make({ allowReplay: true })
        .resume(checkpoints.chargeStarted, { c1: { approve: true, digest: HEX } }),
      'a state passed by value resumes by digests only when it is paused (this one is "running"); resume it from the store by its runId',
    );
  });

  it("in digest mode only pending calls may lack a result: an allowed call without one is damage", async () => {
    const paused = await pausedMail({ allowReplay: true });
    const damaged = copy(paused.state);
    delete openCalls(damaged)[0]!.result;
    // n1 comes first: it is refused before the digest of s1 is even compared.
    await refused(
      paused,
      paused.make().resume(damaged, { s1: { approve: true, digest: HEX } }),
      'call n1 has verdict "allow" and no result, which a paused state never has; the state is damaged',
    );
  });
});

describe("trust: trustState and the store", () => {
  it("trustState: true resumes a state by value as it is", async () => {
    const paused = await pausedMail({ trustState: true });
    await paused.make().resume(copy(paused.state), { s1: { approve: true } });
    expect(paused.ran).toEqual(["send bob@example.com"]);
  });

  it("the store's own copy needs nothing more, by runId or by value", async () => {
    const store = memoryRunStore();
    const paused = await pausedMail({ store });
    await paused.make().resume(paused.state.runId, { s1: { approve: true } });
    expect(paused.ran).toEqual(["send bob@example.com"]);
    const again = await pausedMail({ store });
    await again.make().resume(copy(again.state), { s1: { approve: false } });
    expect(again.ran).toEqual([]);
    expect(again.events.map((e) => e.type)).toContain("run-finish");
  });

  it('a state of a run the store never held is "foreign": digests do not vouch for it', async () => {
    const paused = await pausedMail();
    const digest = paused.result.pending![0]!.digest;
    await refused(
      paused,
      paused
        .make({ store: memoryRunStore() })
        .resume(copy(paused.state), { s1: { approve: true, digest } }),
      `this loop's store holds no state of run ${paused.state.runId} (it was deleted, or never written here), so a state of it passed by value resumes only with a valid signature (AgentLoop signingKey), or with trustState: true if the state never left your own process or storage`,
    );
    const trusted = paused.make({ store: memoryRunStore(), trustState: true });
    await trusted.resume(copy(paused.state), { s1: { approve: true } });
    expect(paused.ran).toEqual(["send bob@example.com"]);
  });
});

describe("the state itself", () => {
  it("refuses what is not an object", async () => {
    const paused = await pausedMail({ trustState: true });
    for (const given of [42, null, [], undefined, true]) {
      await refused(
        paused,
        paused.make().resume(given as never, {}),
        "this is not a tollgate run state (not an object)",
      );
    }
  });

  it("refuses what is not JSON, with the reason", async () => {
    const paused = await pausedMail({ trustState: true });
    const state = {
      ...copy(paused.state),
      toJSON() {
        throw new Error("a getter failed");
      },
    };
    await refused(
      paused,
      paused.make().resume(state, { s1: { approve: true } }),
      "this is not a tollgate run state: it is not JSON (a getter failed)",
    );
  });

  it("refuses a state without a whole-number version", async () => {
    const paused = await pausedMail({ trustState: true });
    for (const version of [undefined, 1.5, "2"]) {
      await refused(
        paused,
        paused.make().resume({ ...copy(paused.state), version } as never, {}),
        "this is not a tollgate run state (no whole-number `version`)",
      );
    }
  });

  it("refuses a paused state without an open step", async () => {
    const paused = await pausedMail({ trustState: true });
    await refused(
      paused,
      paused.make().resume({ ...copy(paused.state), steps: [] }, {}),
      "the state has no open step to resume",
    );
  });
});

describe("migrations", () => {
  const older = (state: RunState, version: number) => ({ ...copy(state), version });
  const upgrade = (state: RunState) => ({ ...state, version: 2 });

  it("an older state needs a registered migration", async () => {
    const paused = await pausedMail({ trustState: true });
    await refused(
      paused,
      paused.make().resume(older(paused.state, 0), { s1: { approve: true } }),
      "the state is version 0 and this loop reads version 3; register stateMigrations[0] to upgrade it",
    );
  });

  it("migrations run in order, each from its version, and the state resumes", async () => {
    const seen: number[] = [];
    const paused = await pausedMail({
      trustState: true,
      stateMigrations: {
        0: (state: RunState) => {
          seen.push(state.version);
          return { ...state, version: 1 };
        },
        1: (state: RunState) => {
          seen.push(state.version);
          return upgrade(state);
        },
      },
    });
    await paused.make().resume(older(paused.state, 0), { s1: { approve: true } });
    expect(seen).toEqual([0, 1]);
    expect(paused.ran).toEqual(["send bob@example.com"]);
  });

  it("a migration that throws is named with its error and kept as the cause; the state is not used up", async () => {
    const failure = new Error("the lookup service is down");
    let failures = 1;
    const paused = await pausedMail({
      trustState: true,
      stateMigrations: {
        0: (state: RunState) => {
          if (failures-- > 0) throw failure;
          return upgrade(state);
        },
      },
    });
    const loop = paused.make();
    const state = older(paused.state, 0);
    const error = await loop.resume(state, { s1: { approve: true } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResumeError);
    expect((error as Error).message).toBe("stateMigrations[0] threw: the lookup service is down");
    expect((error as Error).cause).toBe(failure);
    expect(paused.ran).toEqual([]);
    // Once the migration works, the same state resumes.
    await loop.resume(state, { s1: { approve: true } });
    expect(paused.ran).toEqual(["send bob@example.com"]);
  });

  it("a migration must return a state of a later, whole-number version", async () => {
    const returns: [number, (state: RunState) => unknown][] = [
      [0, () => undefined],
      [0, () => null],
      [0, (state) => ({ ...state, version: 1.5 })],
      [0, (state) => ({ ...state, version: "2" })],
      [1, (state) => ({ ...state, version: 0 })], // older: and there is no stateMigrations[0]
      [1, (state) => ({ ...state })], // the same version
    ];
    for (const [from, migration] of returns) {
      const paused = await pausedMail({ trustState: true, stateMigrations: { [from]: migration } });
      await refused(
        paused,
        paused.make().resume(older(paused.state, from), { s1: { approve: true } }),
        `stateMigrations[${from}] must return a state of a later version`,
      );
    }
  });

  it("a newer state asks for a newer tollgate", async () => {
    const paused = await pausedMail({ trustState: true });
    await refused(
      paused,
      paused.make().resume(older(paused.state, 4), { s1: { approve: true } }),
      "the state is version 4, newer than this loop reads (3); upgrade tollgate",
    );
  });
});

describe("the open step against the transcript", () => {
  const DAMAGED =
    "the state is damaged: its open step's calls are not the tool calls its transcript ends with";

  it("a step whose response has text before its calls resumes", async () => {
    const paused = await pausedMail({ trustState: true });
    expect(lastAssistant(paused.state).parts[0]).toEqual({ type: "text", text: pauseTurn.text });
    const result = await paused.make().resume(copy(paused.state), { s1: { approve: true } });
    expect(result.status).toBe("completed");
    expect(paused.ran).toEqual(["send bob@example.com"]);
  });

  it("refuses a transcript whose last assistant message lacks one of the step's calls", async () => {
    const paused = await pausedMail({ trustState: true });
    const state = copy(paused.state);
    lastAssistant(state).parts.pop();
    await refused(paused, paused.make().resume(state, { s1: { approve: true } }), DAMAGED);
  });

  it("refuses a transcript whose last assistant message names another call", async () => {
    const paused = await pausedMail({ trustState: true });
    const state = copy(paused.state);
    const part = lastAssistant(state).parts[2]!;
    if (part.type !== "tool-call") throw new Error("expected s1's call");
    part.id = "x1";
    await refused(paused, paused.make().resume(state, { s1: { approve: true } }), DAMAGED);
  });

  it("refuses a transcript that does not end with the assistant", async () => {
    const paused = await pausedMail({ trustState: true });
    const asked = copy(paused.state);
    asked.messages.push({ role: "user", content: "well?" });
    await refused(paused, paused.make().resume(asked, { s1: { approve: true } }), DAMAGED);
    const empty = { ...copy(paused.state), messages: [] };
    await refused(paused, paused.make().resume(empty, { s1: { approve: true } }), DAMAGED);
  });

  it("refuses a step record whose response lacks one of its calls", async () => {
    const paused = await pausedMail({ trustState: true });
    const state = copy(paused.state);
    state.steps[0]!.response.parts.pop();
    await refused(paused, paused.make().resume(state, { s1: { approve: true } }), DAMAGED);
  });

  it("refuses a step whose calls repeat an id (a call never runs twice)", async () => {
    const paused = await pausedMail({ trustState: true }, [
      { toolCalls: [{ id: "s1", name: "send", args: BOB }] },
    ]);
    const state = copy(paused.state);
    const [call] = openCalls(state);
    state.steps[0]!.calls.push(copy(call!));
    const [part] = state.steps[0]!.response.parts;
    state.steps[0]!.response.parts.push(copy(part!));
    lastAssistant(state).parts.push(copy(part!));
    await refused(paused, paused.make().resume(state, { s1: { approve: true } }), DAMAGED);
  });
});

describe("the shape of the decisions", () => {
  async function decide(decisions: unknown, message: string) {
    const paused = await pausedMail({ trustState: true });
    await refused(paused, paused.make().resume(copy(paused.state), decisions as never), message);
  }

  it("decisions must be an object", async () => {
    for (const decisions of [null, [], "s1", 1]) {
      await decide(decisions, "decisions must be an object keyed by tool call id");
    }
  });

  it("each decision must be an object", async () => {
    for (const decision of [true, null, ["approve"], "yes"]) {
      await decide(
        { s1: decision },
        "the decision for call s1 must be { approve: true } or { approve: false } (or, for a client-side call, { result } or { error })",
      );
    }
  });

  it("an unknown key is refused, with a did-you-mean when one is near", async () => {
    const known = "a decision has `approve`, `args`, `reason`, `digest`, `remember`";
    await decide(
      { s1: { approved: true } },
      `the decision for call s1 has the unknown key \`approved\` (did you mean \`approve\`?); ${known}`,
    );
    await decide(
      { s1: { approve: true, zzzzzz: 1 } },
      `the decision for call s1 has the unknown key \`zzzzzz\`; ${known}`,
    );
  });

  it("approve must be a boolean", async () => {
    for (const decision of [{ approve: "yes" }, { approve: 1 }, {}]) {
      await decide({ s1: decision }, "the decision for call s1 needs `approve`: true or false");
    }
  });

  it("a reason must be a string", async () => {
    await decide(
      { s1: { approve: false, reason: 42 } },
      "the decision for call s1: `reason` must be a string",
    );
  });

  it("a refusal does not edit args; an approval has no reason", async () => {
    await decide(
      { s1: { approve: false, args: BOB } },
      "the decision for call s1 refuses the call and edits its args; do one or the other",
    );
    await decide(
      { s1: { approve: true, reason: "looks fine" } },
      "the decision for call s1 approves the call; a `reason` goes with a refusal",
    );
  });

  it("a digest must be 64 lowercase hex digits", async () => {
    for (const digest of [42, [HEX], "abc", `f${HEX}`, `${HEX}f`, HEX.toUpperCase()]) {
      await decide(
        { s1: { approve: true, digest } },
        "the decision for call s1: `digest` must be the 64-hex digest from the pending call",
      );
    }
  });
});

describe("ids: every pending call decided, no other", () => {
  it("a decision for an id that is not pending names the pending ones", async () => {
    const paused = await pausedMail({ trustState: true });
    await refused(
      paused,
      paused.make().resume(copy(paused.state), { s1: { approve: true }, zz: { approve: true } }),
      'no pending call has the id "zz"; pending: s1',
    );
    // n1 ran already: it is not pending either.
    await refused(
      paused,
      paused.make().resume(copy(paused.state), { s1: { approve: true }, n1: { approve: true } }),
      'no pending call has the id "n1"; pending: s1',
    );
  });

  it("lists every pending call", async () => {
    const paused = await pausedMail({ trustState: true }, [
      {
        toolCalls: [
          { id: "s1", name: "send", args: BOB },
          { id: "s2", name: "send", args: { to: "carol@example.com" } },
        ],
      },
    ]);
    await refused(
      paused,
      paused.make().resume(copy(paused.state), {
        s1: { approve: true },
        s2: { approve: true },
        zz: { approve: false },
      }),
      'no pending call has the id "zz"; pending: s1, s2',
    );
  });

  it('a checkpoint without pending calls says "none"', async () => {
    const { checkpoints, agent } = await crashedRun();
    await refused(
      agent,
      agent.make({ trustState: true }).resume(checkpoints.chargeStarted, { c1: { approve: true } }),
      'no pending call has the id "c1"; pending: none',
    );
  });

  it("a pending call without a decision", async () => {
    const paused = await pausedMail({ trustState: true });
    await refused(
      paused,
      paused.make().resume(copy(paused.state), {}),
      "call s1 (send) waits for a decision; give { approve: true } or { approve: false }",
    );
  });
});

describe("edited and stored args", () => {
  it("edited args JSON cannot carry", async () => {
    const paused = await pausedMail({ trustState: true });
    const edits: [unknown, string][] = [
      [() => BOB, "a function cannot be written as JSON"],
      [
        {
          toJSON() {
            throw new Error("not data");
          },
        },
        "they cannot be written as JSON (not data)",
      ],
      [
        { to: new Set(["bob"]) },
        "they cannot be written as JSON: they hold a Set (return an array) at args.to",
      ],
    ];
    for (const [args, problem] of edits) {
      await refused(
        paused,
        paused.make().resume(copy(paused.state), { s1: { approve: true, args } }),
        `the edited args of call s1 are not valid: ${problem}`,
      );
    }
  });

  it("edited args over the loop's limits", async () => {
    const paused = await pausedMail({ trustState: true, argsLimits: { maxBytes: 100 } });
    await refused(
      paused,
      paused.make().resume(copy(paused.state), {
        s1: { approve: true, args: { ...BOB, body: "x".repeat(100) } },
      }),
      "the edited args of call s1 are not valid: they are larger than the limit of 100 bytes",
    );
  });

  it("edited args that fail the schema", async () => {
    const paused = await pausedMail({ trustState: true });
    const message = await refusal(
      paused.make().resume(copy(paused.state), { s1: { approve: true, args: { to: "bob" } } }),
    );
    expect(message).toMatch(/^the edited args of call s1 are not valid: to: /);
    expect(paused.ran).toEqual([]);
  });

  it("stored args that fail the schema (the state was edited)", async () => {
    const paused = await pausedMail({ trustState: true });
    const state = copy(paused.state);
    openCalls(state)[1]!.args = { to: "bob" };
    state.pending![0]!.args = { to: "bob" }; // edited to match: pending is derived from the steps
    const message = await refusal(paused.make().resume(state, { s1: { approve: true } }));
    expect(message).toMatch(/^the stored args of call s1 are not valid: to: /);
    expect(paused.ran).toEqual([]);
  });

  it("a pending call whose args are missing is damage, whatever the decision", async () => {
    const paused = await pausedMail({ trustState: true });
    const state = copy(paused.state);
    delete openCalls(state)[1]!.args;
    for (const decision of [{ approve: false }, { approve: true }] as const) {
      await expect(paused.make().resume(state, { s1: decision })).rejects.toThrow(
        "the state is damaged: call s1 waits for approval without its args; tollgate never writes such a state",
      );
    }
    expect(paused.ran).toEqual([]);
  });

  it("an open step without calls, or a paused one that waits on none, is damage", async () => {
    const paused = await pausedMail({ trustState: true });
    const settled = copy(paused.state);
    const call = openCalls(settled)[1]!;
    call.verdict = "deny";
    call.result = { toolCallId: "s1", toolName: "send", output: "no", isError: true };
    await expect(paused.make().resume(settled, {})).rejects.toThrow(
      "the state is damaged: it waits for approval, but no call of its open step does; tollgate never writes such a state",
    );
    const empty = copy(paused.state);
    const open = empty.steps[empty.steps.length - 1]!;
    open.calls = [];
    open.response.parts = open.response.parts.filter((part) => part.type !== "tool-call");
    const last = empty.messages[empty.messages.length - 1]!;
    if (last.role === "assistant")
      last.parts = last.parts.filter((part) => part.type !== "tool-call");
    await expect(paused.make().resume(empty, {})).rejects.toThrow(
      "the state is damaged: its open step has no tool calls; tollgate never writes such a state",
    );
    expect(paused.ran).toEqual([]);
  });

  it("args: undefined is no edit: the stored args run and nothing is marked edited", async () => {
    const paused = await pausedMail({ trustState: true });
    const result = await paused
      .make()
      .resume(copy(paused.state), { s1: { approve: true, args: undefined } });
    expect(paused.ran).toEqual(["send bob@example.com"]);
    expect("editedFrom" in result.steps[0]!.calls[1]!).toBe(false);
    expect(toolResults(result.messages)[1]).toEqual({
      toolCallId: "s1",
      toolName: "send",
      output: "sent to bob@example.com",
      isError: false,
    });
  });
});

describe("the toolset", () => {
  it("a pending call's tool missing from the loop, which has no tools", async () => {
    const paused = await pausedMail({ trustState: true });
    await refused(
      paused,
      paused.make({ tools: [] }).resume(copy(paused.state), { s1: { approve: true } }),
      "tool send is not in this loop's toolset (it has: no tools)",
    );
  });

  it("a pending call's tool missing from the loop, which has others", async () => {
    const paused = await pausedMail({ trustState: true });
    const other = tool({ name: "other", input: z.object({}), execute: () => "" });
    await refused(
      paused,
      paused.make({ tools: [paused.note, other] }).resume(copy(paused.state), {
        s1: { approve: true },
      }),
      "tool send is not in this loop's toolset (it has: note, other)",
    );
  });

  it("the step's callable tools are this loop's tools of those names (executeTool sees them)", async () => {
    const seen: string[][] = [];
    const paused = await pausedMail({
      trustState: true,
      policy: {
        executeTool: async ({ tool, args, ctx, tools }) => {
          seen.push(tools.map((t) => t.name));
          return tool.execute(args, ctx);
        },
      },
    });
    expect(seen).toEqual([["send", "note"]]);
    seen.length = 0;
    // n1 has its result: a loop without `note` still finishes the step.
    const result = await paused
      .make({ tools: [paused.send] })
      .resume(copy(paused.state), { s1: { approve: true } });
    expect(result.status).toBe("completed");
    expect(seen).toEqual([["send"]]);
    expect(result.steps[0]!.callable).toEqual(["send", "note"]);
  });

  it("the step keeps its toolChoice", async () => {
    const paused = await pausedMail({
      trustState: true,
      policy: { prepareStep: ({ tools }) => ({ tools: tools.names(), toolChoice: "required" }) },
    });
    expect(paused.state.steps[0]!.toolChoice).toBe("required");
    const result = await paused.make().resume(copy(paused.state), { s1: { approve: true } });
    expect(result.steps[0]!.toolChoice).toBe("required");
  });
});

/**
 * A run with a store whose tools run one at a time: `charge` (not idempotent), then `lookup`
 * (idempotent). Each tool, when it starts, reads the checkpoint the store holds: the
 * "running" state a crash at that moment would leave behind.
 */
async function crashedRun(options: Partial<AgentLoopOptions> = {}) {
  const store = memoryRunStore();
  const ran: string[] = [];
  const events: LoopEvent[] = [];
  const seen: Record<string, RunState> = {};
  const read = async (name: string) => {
    seen[name] = (await store.get("crashing"))!;
  };
  const charge = tool({
    name: "charge",
    input: z.object({ cents: z.number() }),
    execute: async ({ cents }) => {
      await read("charge");
      ran.push(`charge ${cents}`);
      return "charged";
    },
  });
  const lookup = tool({
    name: "lookup",
    idempotent: true,
    input: z.object({ q: z.string() }),
    execute: async ({ q }) => {
      await read("lookup");
      ran.push(`lookup ${q}`);
      return `found ${q}`;
    },
  });
  const turn = {
    toolCalls: [
      { id: "c1", name: "charge", args: { cents: 500 } },
      { id: "l1", name: "lookup", args: { q: "invoice" } },
    ],
  };
  const first = new AgentLoop({
    provider: scriptedProvider([turn, { text: "done" }]),
    tools: [charge, lookup],
    store,
    maxParallelToolCalls: 1,
    ...options,
  });
  await first.run("pay", { runId: "crashing" });
  ran.length = 0;
  const checkpoints = { chargeStarted: seen.charge!, lookupStarted: seen.lookup! };
  const make = (extra: Partial<AgentLoopOptions> = {}) =>
    new AgentLoop({
      provider: scriptedProvider([{ text: "recovered" }]),
      tools: [charge, lookup],
      onEvent: (event) => events.push(event),
      ...options,
      ...extra,
    });
  return { checkpoints, agent: { ran, events, make }, charge, lookup };
}

/** A store holding just this state, as a crashed process would have left it. */
async function storeHolding(state: RunState): Promise<RunStore> {
  const store = memoryRunStore();
  const lease = (await store.acquire(state.runId))!;
  await store.put(state, lease);
  await store.release(lease);
  return store;
}

describe('a "running" checkpoint (a crash while tools ran)', () => {
  const UNKNOWN = "outcome unknown: the process stopped while this call ran";

  it("the checkpoints are what a crash would leave", async () => {
    const { checkpoints } = await crashedRun();
    const { chargeStarted, lookupStarted } = checkpoints;
    expect(chargeStarted.status).toBe("running");
    expect(openCalls(chargeStarted).map((c) => [c.started, c.result?.output])).toEqual([
      [true, undefined],
      [undefined, undefined],
    ]);
    expect(openCalls(lookupStarted).map((c) => [c.started, c.result?.output])).toEqual([
      [undefined, "charged"],
      [true, undefined],
    ]);
  });

  it("a started call that is not idempotent gets 'outcome unknown'; an allowed call that had not started runs", async () => {
    const { checkpoints, agent } = await crashedRun();
    const store = await storeHolding(checkpoints.chargeStarted);
    const result = await agent.make({ store }).resume("crashing");
    expect(agent.ran).toEqual(["lookup invoice"]);
    expect(result.status).toBe("completed");
    expect(result.text).toBe("recovered");
    expect(toolResults(result.messages)).toEqual([
      { toolCallId: "c1", toolName: "charge", output: UNKNOWN, isError: true },
      { toolCallId: "l1", toolName: "lookup", output: "found invoice", isError: false },
    ]);
    expect(ofType(agent.events, "tool-decision")).toEqual([]);
    expect(
      ofType(agent.events, "tool-result").map((e) => [e.toolCallId, e.output, e.isError]),
    ).toEqual([
      ["c1", UNKNOWN, true],
      ["l1", "found invoice", false],
    ]);
    expect(result.steps[0]!.calls.map((c) => [c.verdict, c.by, c.started])).toEqual([
      ["allow", "default", undefined],
      ["allow", "default", undefined],
    ]);
  });

  it("a started call whose tool is no longer in the toolset gets 'outcome unknown' too", async () => {
    const { checkpoints, agent, lookup } = await crashedRun();
    const result = await agent
      .make({ tools: [lookup], trustState: true })
      .resume(checkpoints.chargeStarted);
    expect(agent.ran).toEqual(["lookup invoice"]);
    expect(toolResults(result.messages)[0]).toEqual({
      toolCallId: "c1",
      toolName: "charge",
      output: UNKNOWN,
      isError: true,
    });
  });

  it("a started call that is idempotent runs again", async () => {
    const { checkpoints, agent } = await crashedRun();
    const result = await agent.make({ trustState: true }).resume(checkpoints.lookupStarted);
    expect(agent.ran).toEqual(["lookup invoice"]);
    expect(toolResults(result.messages)).toEqual([
      { toolCallId: "c1", toolName: "charge", output: "charged", isError: false },
      { toolCallId: "l1", toolName: "lookup", output: "found invoice", isError: false },
    ]);
  });

  it("a signed checkpoint resumes by value on a loop with the key, without digests", async () => {
    const { checkpoints, agent } = await crashedRun({ signingKey: "k" });
    expect(checkpoints.chargeStarted.signature).toMatch(/^[0-9a-f]{64}$/);
    const result = await agent.make({ allowReplay: true }).resume(checkpoints.chargeStarted);
    expect(result.status).toBe("completed");
    expect(agent.ran).toEqual(["lookup invoice"]);
  });

  it("an allowed call about to run again is checked against the schema first", async () => {
    const { checkpoints, agent } = await crashedRun();
    const state = copy(checkpoints.chargeStarted);
    openCalls(state)[1]!.args = { q: 7 };
    const message = await refusal(agent.make({ trustState: true }).resume(state));
    expect(message).toMatch(/^the stored args of call l1 are not valid: q: /);
    expect(agent.ran).toEqual([]);
  });

  it("a call without a result that was neither allowed nor pending is damage, and does not run", async () => {
    const { checkpoints, agent } = await crashedRun();
    for (const verdict of ["deny", "block"] as const) {
      const state = copy(checkpoints.chargeStarted);
      const call = openCalls(state)[1]! as CallRecord;
      call.verdict = verdict;
      call.by = "policy";
      await refused(
        agent,
        agent.make({ trustState: true }).resume(state),
        `call l1 has verdict "${verdict}" but no result; the state is damaged`,
      );
    }
  });
});

describe("what a resume records and emits", () => {
  it("a refusal with a reason: the model reads it, the record and the denied list keep it", async () => {
    const paused = await pausedMail({ trustState: true });
    const result = await paused
      .make()
      .resume(copy(paused.state), { s1: { approve: false, reason: "wrong person" } });
    expect(paused.ran).toEqual([]);
    expect(toolResults(result.messages)[1]).toEqual({
      toolCallId: "s1",
      toolName: "send",
      output: "the call to send was refused by a human: wrong person",
      isError: true,
    });
    expect(result.steps[0]!.calls[1]).toMatchObject({
      verdict: "deny",
      by: "approval",
      reason: "wrong person",
    });
    expect(result.state.denied).toStrictEqual([
      { toolName: "send", args: '{"body":"","to":"bob@example.com"}', reason: "wrong person" },
    ]);
    const [decision] = ofType(paused.events, "tool-decision");
    expect(decision).toMatchObject({
      toolCallId: "s1",
      verdict: "deny",
      by: "approval",
      reason: "wrong person",
      call: { id: "s1", name: "send", args: BOB },
    });
    expect(
      ofType(paused.events, "tool-result").map((e) => [e.toolCallId, e.output, e.isError]),
    ).toEqual([["s1", "the call to send was refused by a human: wrong person", true]]);
  });

  it("a refusal without a reason: no reason anywhere", async () => {
    const paused = await pausedMail({ trustState: true });
    const result = await paused.make().resume(copy(paused.state), { s1: { approve: false } });
    expect(toolResults(result.messages)[1]).toMatchObject({
      output: "the call to send was refused by a human",
      isError: true,
    });
    const record = result.steps[0]!.calls[1]!;
    expect(record).toMatchObject({ verdict: "deny", by: "approval" });
    expect("reason" in record).toBe(false);
    expect(result.state.denied).toStrictEqual([
      { toolName: "send", args: '{"body":"","to":"bob@example.com"}' },
    ]);
    const [decision] = ofType(paused.events, "tool-decision");
    expect(decision).not.toHaveProperty("reason");
  });

  it("an approval: allowed by approval, no editedFrom; decision then result events", async () => {
    const paused = await pausedMail({ trustState: true });
    const result = await paused.make().resume(copy(paused.state), { s1: { approve: true } });
    const record = result.steps[0]!.calls[1]!;
    expect(record).toMatchObject({ verdict: "allow", by: "approval", args: BOB });
    expect("editedFrom" in record).toBe(false);
    expect(paused.events.map((e) => e.type).slice(0, 4)).toEqual([
      "run-start",
      "tool-decision",
      "tool-result",
      "step-finish",
    ]);
    expect(ofType(paused.events, "tool-decision")[0]).toMatchObject({
      verdict: "allow",
      by: "approval",
      call: { id: "s1", name: "send", args: BOB, rawArgs: JSON.stringify(BOB) },
    });
    expect(ofType(paused.events, "tool-result")[0]).toMatchObject({
      toolCallId: "s1",
      output: "sent to bob@example.com",
      isError: false,
    });
  });

  it("an edited approval: the edit runs and is recorded with what it replaced", async () => {
    const paused = await pausedMail({ trustState: true });
    const carol = { to: "carol@example.com", body: "hi" };
    const result = await paused
      .make()
      .resume(copy(paused.state), { s1: { approve: true, args: carol } });
    expect(paused.ran).toEqual(["send carol@example.com hi"]);
    expect(result.steps[0]!.calls[1]).toMatchObject({
      verdict: "allow",
      by: "approval",
      args: carol,
      editedFrom: BOB,
    });
    expect(toolResults(result.messages)[1]).toEqual({
      toolCallId: "s1",
      toolName: "send",
      output: "sent to carol@example.com",
      isError: false,
      editedArgs: carol,
    });
    expect(ofType(paused.events, "tool-decision")[0]!.call).toMatchObject({ args: carol });
  });

  it("a step that both paused and ended the run ends it once resumed (endedBy carried over)", async () => {
    const paused = await pausedMail({
      trustState: true,
      policy: { endsRun: ({ call }) => call.name === "note" },
    });
    expect(paused.state.endedBy).toMatchObject({ id: "n1", name: "note" });
    const result = await paused.make().resume(copy(paused.state), { s1: { approve: true } });
    expect(result.status).toBe("ended_by_tool");
    expect(result.endedBy).toMatchObject({ id: "n1", name: "note", args: { text: "draft" } });
    expect(paused.ran).toEqual(["send bob@example.com"]);
  });
});
