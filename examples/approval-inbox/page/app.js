// The inbox page: plain DOM, no framework, no build step. The server serves readEventStream
// (tollgate/event-stream) as /vendor/event-stream.js.
import { readEventStream } from "/vendor/event-stream.js";

const runsElement = document.getElementById("runs");
const summary = document.getElementById("summary");

/** Makes an element with a class, text and attributes. */
function el(tag, className, text, attributes = {}) {
  const element = document.createElement(tag);
  if (className) element.className = className;
  if (text !== undefined) element.textContent = text;
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, value);
  return element;
}

/** One transcript message as text. */
function messageText(message) {
  if (message.role === "user") {
    return typeof message.content === "string"
      ? message.content
      : message.content
          .map((part) => (part.type === "text" ? part.text : `[${part.type}]`))
          .join("");
  }
  if (message.role === "assistant") {
    return message.parts
      .map((part) => (part.type === "tool-call" ? `calls ${part.name} ${part.args}` : part.text))
      .join("\n");
  }
  return message.results
    .map((result) => `${result.toolName} → ${JSON.stringify(result.output)}`)
    .join("\n");
}

function transcriptList(messages) {
  const list = el("ol", "transcript", undefined, { "data-testid": "transcript" });
  for (const message of messages) {
    const item = el("li", `message ${message.role}`);
    item.append(el("span", "role", message.role), messageText(message));
    list.append(item);
  }
  return list;
}

/** The run's card: transcript on the left, its waiting calls and live events on the right. */
function runCard(run) {
  const card = el("section", "run", undefined, { "data-run": run.runId });
  const status = el("span", "status", "waits for approval", { "data-testid": "status" });
  const title = el("h2", "", run.runId);
  title.append(status);
  const left = el("div");
  left.append(el("h3", "", "Transcript"), transcriptList(run.transcript));
  const right = el("div");
  right.append(el("h3", "", run.calls.length === 1 ? "Waiting call" : "Waiting calls"));
  const runError = el("p", "error", "", { "data-testid": "run-error", role: "alert" });
  const events = el("ol", "events", undefined, { "data-testid": "events" });
  const answer = el("p", "answer", "", { "data-testid": "answer" });
  const decided = new Map();
  const view = { card, status, runError, events, answer, calls: new Map() };
  for (const call of run.calls) {
    right.append(callBox(run, call, decided, view));
  }
  right.append(runError, events, answer);
  card.append(title, left, right);
  return card;
}

function callBox(run, call, decided, view) {
  const box = el("div", "call", undefined, { "data-call": call.key });
  const head = el("div", "call-head");
  head.append(
    el("span", "tool-name", call.toolName),
    el("span", "reason", call.reason ?? "needs approval"),
  );
  const original = JSON.stringify(call.args, null, 2);
  const args = el("textarea", "", undefined, {
    "aria-label": `args of ${call.toolName}`,
    spellcheck: "false",
  });
  args.value = original;
  args.rows = Math.max(4, original.split("\n").length + 1);
  const error = el("p", "error", "", { "data-testid": "call-error", role: "alert" });
  const reason = el("input", "", undefined, {
    type: "text",
    placeholder: "Reason for refusing (the model reads it)",
    "aria-label": `reason to refuse ${call.toolName}`,
  });
  const approve = el("button", "approve", "Approve");
  const deny = el("button", "deny", "Deny");
  const actions = el("div", "actions");
  actions.append(approve, reason, deny);
  view.calls.set(call.key, { args, error, buttons: [approve, deny] });

  approve.addEventListener("click", () => {
    error.textContent = "";
    args.classList.remove("invalid");
    let edited;
    try {
      edited = JSON.parse(args.value);
    } catch (problem) {
      args.classList.add("invalid");
      error.textContent = `not JSON: ${problem.message}`;
      return;
    }
    const changed = JSON.stringify(edited) !== JSON.stringify(call.args);
    decide(run, call.key, changed ? { approve: true, args: edited } : { approve: true });
  });
  deny.addEventListener("click", () => {
    decide(run, call.key, { approve: false, reason: reason.value });
  });

  /** Records one call's decision; the run is sent once every waiting call has one. */
  function decide(run, key, decision) {
    decided.set(key, decision);
    if (decided.size < run.calls.length) {
      view.runError.textContent = "Decide the other waiting calls to send.";
      return;
    }
    void send(run, Object.fromEntries(decided), view).finally(() => decided.clear());
  }

  box.append(head, args, error, actions);
  return box;
}

/** Sends the run's decisions; on 202 watches the run's events until it ends. */
async function send(run, decisions, view) {
  const buttons = [...view.calls.values()].flatMap((call) => call.buttons);
  for (const button of buttons) button.disabled = true;
  view.runError.textContent = "";
  const response = await fetch(`/api/runs/${encodeURIComponent(run.runId)}/decisions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ stateId: run.stateId, decisions }),
  });
  const body = await response.json();
  if (response.status !== 202) {
    const call = body.callKey === undefined ? undefined : view.calls.get(body.callKey);
    if (call) {
      call.error.textContent = body.error;
      call.args.classList.add("invalid");
    } else {
      view.runError.textContent = body.error;
    }
    for (const button of buttons) button.disabled = false;
    return;
  }
  view.status.textContent = "running";
  await watch(body.events, view);
}

/** Shows the run's events live, then its final answer. */
async function watch(url, view) {
  let text = "";
  try {
    for await (const event of readEventStream(await fetch(url))) {
      const line = eventLine(event);
      if (line) view.events.append(el("li", "", line));
      if (event.type === "text-delta") text += event.text;
      if (event.type === "run-finish") {
        view.status.textContent = event.status.replace("_", " ");
        view.status.classList.toggle("completed", event.status === "completed");
        view.answer.textContent = event.result.text ?? text;
      }
    }
  } catch (error) {
    view.runError.textContent = `the event stream failed: ${error.message}`;
  }
}

function eventLine(event) {
  switch (event.type) {
    case "tool-decision":
      return `${event.toolName}: ${event.verdict} by ${event.by}`;
    case "tool-result":
      return `${event.toolName} → ${JSON.stringify(event.output)}`;
    case "run-finish":
      return `run ${event.status}`;
    default:
      return undefined;
  }
}

async function load() {
  const response = await fetch("/api/pending");
  const { runs } = await response.json();
  const calls = runs.reduce((sum, run) => sum + run.calls.length, 0);
  summary.textContent =
    runs.length === 0
      ? "Nothing waits for a decision."
      : `${runs.length} run${runs.length === 1 ? "" : "s"} wait${runs.length === 1 ? "s" : ""} for a decision on ${calls} call${calls === 1 ? "" : "s"}.`;
  runsElement.replaceChildren(...runs.map(runCard));
  document.body.dataset.loaded = "true";
}

void load();
