/**
 * A page's decisions on one paused run, checked against the store's own copy of the run before
 * anything resumes: the run and its calls exist, the page saw the state the store holds, every
 * waiting call has exactly one well-formed decision, and edited args fit the tool's schema. The
 * digest each decision carries is the store's, never the browser's.
 */
import type { ApprovalDecisions, FullRunStore, PendingApproval, RunState, Tool } from "tollgate";

/** A request the inbox refuses: its HTTP status, a message for the page, and where it applies. */
export class InboxError extends Error {
  override readonly name = "InboxError";
  constructor(
    readonly status: 400 | 403 | 404 | 405 | 409 | 413 | 415 | 500,
    message: string,
    /** The waiting call a refusal is about (its key), so the page shows it next to that call. */
    readonly callKey?: string,
    /** For a 405: the methods the path takes (the response's `Allow` header). */
    readonly allow?: string,
  ) {
    super(message);
  }
}

/** What the page sends for one waiting call. */
export type PageDecision = { approve: true; args?: unknown } | { approve: false; reason: string };

/** The key a waiting call is decided by: its id, or its sub-run path and id for a sub-agent's call. */
export function callKey(call: PendingApproval): string {
  return call.subRun ? [...call.subRun.path, call.toolCallId].join("/") : call.toolCallId;
}

/** The longest reason a human may give for a refusal. */
const MAX_REASON = 1_000;

/**
 * Reads a decisions body (`{ stateId, decisions: { [callKey]: PageDecision } }`) for `runId`
 * and turns it into the loop's decisions, each carrying its call's digest from the store's copy.
 * Throws `InboxError` (nothing resumed) for anything it does not expect.
 */
export async function checkedDecisions(
  store: FullRunStore,
  tools: ReadonlyMap<string, Tool>,
  runId: string,
  body: unknown,
): Promise<ApprovalDecisions> {
  const { stateId, decisions } = bodyParts(body);
  const state = await waitingState(store, runId, stateId);
  const waiting = new Map((state.pending ?? []).map((call) => [callKey(call), call]));
  for (const key of Object.keys(decisions)) {
    if (!waiting.has(key)) throw new InboxError(400, `run ${runId} has no waiting call ${key}`);
  }
  const checked: ApprovalDecisions = {};
  for (const [key, call] of waiting) {
    if (!Object.hasOwn(decisions, key)) {
      throw new InboxError(400, `no decision for ${call.toolName} (call ${key})`, key);
    }
    checked[key] = await checkedDecision(tools, key, call, decisions[key]);
  }
  return checked;
}

function bodyParts(body: unknown): { stateId: string; decisions: Record<string, unknown> } {
  if (!isRecord(body)) throw new InboxError(400, "expected a JSON object { stateId, decisions }");
  const extra = Object.keys(body).filter((key) => key !== "stateId" && key !== "decisions");
  if (extra.length > 0) throw new InboxError(400, `unexpected field ${extra[0]}`);
  const { stateId, decisions } = body;
  if (typeof stateId !== "string" || stateId === "") {
    throw new InboxError(400, "stateId must be the id of the state the page showed");
  }
  if (!isRecord(decisions)) throw new InboxError(400, "decisions must be an object by call id");
  return { stateId, decisions };
}

/** The store's state of the run, if it still is the paused state the page showed. */
async function waitingState(
  store: FullRunStore,
  runId: string,
  stateId: string,
): Promise<RunState> {
  const state = await store.get(runId);
  if (!state) throw new InboxError(404, `no run ${runId} in the store`);
  if (state.stateId !== stateId) {
    throw new InboxError(
      409,
      `run ${runId} moved on since the page loaded (its state is no longer ${stateId}): reload`,
    );
  }
  if (state.status !== "needs_approval") {
    throw new InboxError(409, `run ${runId} is not waiting for approval (${state.status})`);
  }
  return state;
}

async function checkedDecision(
  tools: ReadonlyMap<string, Tool>,
  key: string,
  call: PendingApproval,
  given: unknown,
): Promise<ApprovalDecisions[string]> {
  const { digest } = call;
  if (!isRecord(given)) throw new InboxError(400, `the decision for ${key} is not an object`, key);
  if (given.approve === false) {
    onlyKeys(given, ["approve", "reason"], key);
    const { reason } = given;
    if (typeof reason !== "string" || reason.trim() === "" || reason.length > MAX_REASON) {
      throw new InboxError(400, `a refusal needs a reason (1 to ${MAX_REASON} characters)`, key);
    }
    return { approve: false, reason: reason.trim(), digest };
  }
  if (given.approve !== true) {
    throw new InboxError(400, `the decision for ${key} needs approve: true or false`, key);
  }
  onlyKeys(given, ["approve", "args"], key);
  if (!Object.hasOwn(given, "args")) return { approve: true, digest };
  await checkArgs(tools, key, call.toolName, given.args);
  return { approve: true, args: given.args, digest };
}

/** Edited args must fit the tool's own schema (in the model's form, as the loop checks them). */
async function checkArgs(
  tools: ReadonlyMap<string, Tool>,
  key: string,
  toolName: string,
  args: unknown,
): Promise<void> {
  const found = tools.get(toolName);
  if (!found) {
    throw new InboxError(400, `cannot check edited args: the inbox has no tool ${toolName}`, key);
  }
  const result = await found.input["~standard"].validate(args);
  if (result.issues) {
    const issues = result.issues.map((issue) => {
      const path = (issue.path ?? []).map((part) =>
        String(typeof part === "object" ? part.key : part),
      );
      return path.length > 0 ? `${path.join(".")}: ${issue.message}` : issue.message;
    });
    throw new InboxError(400, `invalid args for ${toolName}: ${issues.join("; ")}`, key);
  }
}

function onlyKeys(value: Record<string, unknown>, allowed: string[], key: string): void {
  const extra = Object.keys(value).find((name) => !allowed.includes(name));
  if (extra !== undefined) {
    throw new InboxError(400, `unexpected field ${extra} in the decision for ${key}`, key);
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
