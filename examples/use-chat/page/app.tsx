/**
 * The chat page: React 19 and the AI SDK's `useChat`, talking to tollgate/ui's `chatResponse`
 * at /api/chat. It renders the transcript part by part: the text, and each tool call with its
 * name, input and state. A call that waits for a human gets Approve and Deny buttons
 * (`addToolApprovalResponse`); `get_location`, a tool the server does not run, is answered
 * here from the browser's geolocation (`onToolCall` → `addToolOutput`). Once every call of the
 * last step has its answer, `sendAutomaticallyWhen` posts the chat again, and the server
 * resumes the run it stored.
 */
import { type UseChatHelpers, useChat } from "@ai-sdk/react";
import {
  DefaultChatTransport,
  type DynamicToolUIPart,
  getToolName,
  isToolUIPart,
  lastAssistantMessageIsCompleteWithApprovalResponses,
  lastAssistantMessageIsCompleteWithToolCalls,
  type ToolUIPart,
  type UIMessage,
} from "ai";
import { type FormEvent, useEffect, useState } from "react";
import { createRoot } from "react-dom/client";

type Answer = UseChatHelpers<UIMessage>["addToolApprovalResponse"];

function Chat() {
  const { messages, sendMessage, addToolApprovalResponse, addToolOutput, status, error } = useChat({
    transport: new DefaultChatTransport({ api: "/api/chat" }),
    // Post again once every call of the last step is answered: the server resumes its run.
    sendAutomaticallyWhen: (chat) =>
      lastAssistantMessageIsCompleteWithApprovalResponses(chat) ||
      lastAssistantMessageIsCompleteWithToolCalls(chat),
    // The server runs every tool but get_location, which has no `execute`: answer it here.
    onToolCall: ({ toolCall }) => {
      if (toolCall.toolName !== "get_location") return;
      const { toolCallId } = toolCall;
      locate().then(
        (output) => addToolOutput({ tool: "get_location", toolCallId, output }),
        (e: Error) =>
          addToolOutput({
            tool: "get_location",
            toolCallId,
            state: "output-error",
            errorText: e.message,
          }),
      );
    },
  });
  const [draft, setDraft] = useState("");
  useEffect(() => {
    document.body.dataset.loaded = ""; // the page is ready for input
  }, []);

  const send = (event: FormEvent) => {
    event.preventDefault();
    if (draft.trim() === "") return;
    void sendMessage({ text: draft });
    setDraft("");
  };
  return (
    <main>
      <h1>Chat</h1>
      <ol className="transcript" data-testid="transcript">
        {messages.map((message) => (
          <li key={message.id} className={`message ${message.role}`}>
            <span className="role">{message.role}</span>
            {message.parts.map((part, index) =>
              isToolUIPart(part) ? (
                <ToolCall key={part.toolCallId} part={part} answer={addToolApprovalResponse} />
              ) : part.type === "text" ? (
                <p key={index}>{part.text}</p>
              ) : null,
            )}
          </li>
        ))}
      </ol>
      <p className={`status ${error ? "error" : ""}`} data-testid="status">
        {error ? error.message : status}
      </p>
      <form onSubmit={send}>
        <input
          aria-label="message"
          placeholder="Ask something"
          value={draft}
          onChange={(event) => setDraft(event.target.value)}
        />
        <button type="submit" disabled={status !== "ready" || waitsForPage(messages.at(-1))}>
          Send
        </button>
      </form>
    </main>
  );
}

/** One tool call: its name, input and state; its output, error or refusal; or the buttons. */
function ToolCall({ part, answer }: { part: ToolUIPart | DynamicToolUIPart; answer: Answer }) {
  const [reason, setReason] = useState("");
  const name = getToolName(part);
  return (
    <section className={`tool ${part.state}`} data-tool={name} data-state={part.state}>
      <div className="call">
        <span className="tool-name">{name}</span>
        <code>{JSON.stringify(part.input)}</code>
        <span className="state">{STATES[part.state]}</span>
      </div>
      {part.state === "output-available" && <pre>{JSON.stringify(part.output)}</pre>}
      {part.state === "output-error" && <p className="error">{part.errorText}</p>}
      {part.state === "output-denied" && (
        <p className="denied">denied{part.approval.reason ? `: ${part.approval.reason}` : ""}</p>
      )}
      {part.state === "approval-requested" && (
        <div className="approval">
          <button type="button" onClick={() => answer({ id: part.approval.id, approved: true })}>
            Approve
          </button>
          <input
            aria-label={`reason to deny ${name}`}
            placeholder="why deny? (optional)"
            value={reason}
            onChange={(event) => setReason(event.target.value)}
          />
          <button
            type="button"
            className="deny"
            onClick={() =>
              answer({
                id: part.approval.id,
                approved: false,
                reason: reason || "denied in the chat",
              })
            }
          >
            Deny
          </button>
        </div>
      )}
    </section>
  );
}

/** Whether a call of the last message waits for this page (the server refuses a message then). */
const waitsForPage = (message: UIMessage | undefined) =>
  message?.parts.some(
    (part) =>
      isToolUIPart(part) &&
      (part.state === "approval-requested" || part.state === "input-available"),
  ) ?? false;

const STATES: Record<(ToolUIPart | DynamicToolUIPart)["state"], string> = {
  "input-streaming": "receiving",
  "input-available": "running",
  "approval-requested": "needs approval",
  "approval-responded": "answered",
  "output-available": "done",
  "output-error": "error",
  "output-denied": "denied",
};

/** The browser's position: get_location's output. */
function locate(): Promise<{ latitude: number; longitude: number }> {
  return new Promise((resolve, reject) =>
    navigator.geolocation.getCurrentPosition(
      ({ coords }) => resolve({ latitude: coords.latitude, longitude: coords.longitude }),
      (error) => reject(new Error(`no location: ${error.message}`)),
    ),
  );
}

createRoot(document.getElementById("root")!).render(<Chat />);
