// biome-ignore-all lint/suspicious/noThenProperty: `then` here is JSON Schema's if/then keyword, not a thenable

const text = { type: "string" };
const id = { type: "string", minLength: 1 };
const count = { type: "integer", minimum: 0 };
const counts = { type: "object", additionalProperties: count };
const names = { type: "array", items: text };

const usage = {
  type: "object",
  required: ["inputTokens", "outputTokens", "totalTokens"],
  properties: {
    inputTokens: { type: "number", minimum: 0 },
    outputTokens: { type: "number", minimum: 0 },
    totalTokens: { type: "number", minimum: 0 },
    reasoningTokens: { type: "number", minimum: 0 },
    cachedInputTokens: { type: "number", minimum: 0 },
    unknown: { const: true },
  },
  additionalProperties: false,
};

const assistantPart = {
  type: "object",
  required: ["type"],
  properties: { type: { enum: ["text", "reasoning", "tool-call"] } },
  allOf: [
    {
      if: { properties: { type: { const: "tool-call" } } },
      then: {
        required: ["id", "name", "args"],
        properties: { type: true, id, name: text, args: text },
        additionalProperties: false,
      },
    },
    {
      if: { properties: { type: { const: "text" } } },
      then: { required: ["text"], properties: { type: true, text }, additionalProperties: false },
    },
    {
      if: { properties: { type: { const: "reasoning" } } },
      then: {
        required: ["text"],
        properties: { type: true, text, signature: text },
        additionalProperties: false,
      },
    },
  ],
};

/** An image or a file is stored as its URL, or its bytes as a base64 data URL. */
const mediaUrl = { type: "string", pattern: "^(https?:|data:[^,]*;base64,)" };
const mediaType = { type: "string", pattern: "^[^/]+/[^/]+$" };

const textPart = {
  type: "object",
  required: ["type", "text"],
  properties: { type: { const: "text" }, text },
  additionalProperties: false,
};
const imagePart = {
  type: "object",
  required: ["type", "image"],
  properties: { type: { const: "image" }, image: mediaUrl, mediaType },
  additionalProperties: false,
};
const filePart = {
  type: "object",
  required: ["type", "data", "mediaType"],
  properties: { type: { const: "file" }, data: mediaUrl, mediaType, filename: text },
  additionalProperties: false,
};

const toolResult = {
  type: "object",
  required: ["toolCallId", "toolName", "output", "isError"],
  properties: {
    toolCallId: id,
    toolName: text,
    output: true,
    isError: { type: "boolean" },
    editedArgs: true,
    content: { type: "array", items: { anyOf: [textPart, imagePart] } },
  },
  additionalProperties: false,
};

const userContent = {
  anyOf: [text, { type: "array", minItems: 1, items: { anyOf: [textPart, imagePart, filePart] } }],
};

const message = {
  type: "object",
  required: ["role"],
  properties: { role: { enum: ["user", "assistant", "tool"] } },
  allOf: [
    {
      if: { properties: { role: { const: "user" } } },
      then: {
        required: ["content"],
        properties: { role: true, content: userContent },
        additionalProperties: false,
      },
    },
    {
      if: { properties: { role: { const: "assistant" } } },
      then: {
        required: ["parts"],
        properties: { role: true, parts: { type: "array", items: assistantPart } },
        additionalProperties: false,
      },
    },
    {
      if: { properties: { role: { const: "tool" } } },
      then: {
        required: ["results"],
        properties: { role: true, results: { type: "array", items: toolResult } },
        additionalProperties: false,
      },
    },
  ],
};

const toolChoice = {
  anyOf: [
    { enum: ["auto", "required", "none"] },
    { type: "object", required: ["name"], properties: { name: text }, additionalProperties: false },
  ],
};

const callRecord = {
  type: "object",
  required: ["toolCallId", "toolName", "rawArgs", "verdict", "by"],
  properties: {
    toolCallId: id,
    toolName: text,
    rawArgs: text,
    args: true,
    editedFrom: true,
    repairedFrom: text,
    started: { const: true },
    verdict: {
      enum: [
        "allow",
        "deny",
        "needs-approval",
        "block",
        "result",
        "stop",
        "invalid",
        "unavailable",
      ],
    },
    by: { type: "string", pattern: "^(hook:(0|[1-9][0-9]*)|policy|tool|schema|default|approval)$" },
    reason: text,
    result: toolResult,
    ms: { type: "number", minimum: 0 },
    subRun: { $ref: "#" }, // a paused sub-agent's state: a whole RunState, checked the same way
    external: { const: true }, // a client-side tool's call waiting for its result
  },
  additionalProperties: false,
};

const stepRecord = {
  type: "object",
  required: ["index", "tools", "callable", "response", "calls", "usage", "ms"],
  properties: {
    index: count,
    tools: names,
    callable: names,
    toolChoice,
    response: {
      type: "object",
      required: ["parts", "finishReason", "usage"],
      properties: {
        parts: { type: "array", items: assistantPart },
        finishReason: {
          enum: ["stop", "tool-calls", "length", "content-filter", "error", "other"],
        },
        usage,
      },
      additionalProperties: false,
    },
    calls: { type: "array", items: callRecord },
    usage,
    ms: { type: "number", minimum: 0 },
    // What prepareStep changed for the step besides its tools.
    instructions: text,
    settings: { type: "object" },
    provider: {
      type: "object",
      required: ["name", "model"],
      properties: { name: text, model: text },
      additionalProperties: false,
    },
    messages: { type: "integer", minimum: 1 },
    // What the model-side hooks said in the step.
    modelVerdicts: {
      type: "array",
      items: {
        type: "object",
        required: ["phase", "by", "verdict"],
        properties: {
          phase: { enum: ["request", "response"] },
          by: { type: "string", pattern: "^(pre|post)-model:(0|[1-9][0-9]*)$" },
          verdict: { enum: ["messages", "text", "block", "stop"] },
          reason: { type: "string" },
        },
        additionalProperties: false,
      },
    },
    agent: text, // the agent that ran the step (a handoff changes it)
    // A finished step's tool message (its index in `messages`): its calls' results are there.
    toolMessage: count,
  },
  additionalProperties: false,
};

const hex64 = { type: "string", pattern: "^[0-9a-f]{64}$" };
/** Which sub-run a pending or external call belongs to: its run id and the path of call ids. */
const subRunRef = {
  type: "object",
  required: ["runId", "path"],
  properties: { runId: id, path: { type: "array", minItems: 1, items: id } },
  additionalProperties: false,
};

/** The JSON Schema of `RunState` (the version this build writes), checked before a state resumes. */
export const RUN_STATE_SCHEMA = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  required: [
    "version",
    "stateId",
    "runId",
    "status",
    "messages",
    "steps",
    "usage",
    "maxSteps",
    "retries",
    "unavailableCalls",
    "executed",
    "denied",
  ],
  properties: {
    version: { type: "integer" },
    stateId: id,
    runId: id,
    status: {
      enum: [
        "completed",
        "stopped",
        "ended_by_tool",
        "needs_approval",
        "needs_results",
        "max_steps",
        "limit_reached",
        "stopped_by_condition",
        "running",
      ],
    },
    messages: { type: "array", items: message },
    steps: { type: "array", items: stepRecord },
    usage,
    maxSteps: { type: "integer", minimum: 1 },
    retries: counts,
    unavailableCalls: counts,
    executed: names,
    denied: {
      type: "array",
      items: {
        type: "object",
        required: ["toolName", "args"],
        properties: { toolName: text, args: text, reason: text },
        additionalProperties: false,
      },
    },
    remembered: {
      type: "array",
      items: {
        type: "object",
        required: ["toolName", "approve"],
        properties: { toolName: text, approve: { type: "boolean" }, reason: text },
        additionalProperties: false,
      },
    },
    limits: {
      type: "object",
      properties: {
        modelCalls: { type: "integer", minimum: 1 },
        toolCalls: count,
        inputTokens: { type: "integer", minimum: 1 },
        outputTokens: { type: "integer", minimum: 1 },
        totalTokens: { type: "integer", minimum: 1 },
      },
      additionalProperties: false,
    },
    callCounts: {
      type: "object",
      required: ["modelCalls", "toolCalls"],
      properties: { modelCalls: count, toolCalls: count },
      additionalProperties: false,
    },
    pending: {
      type: "array",
      items: {
        type: "object",
        required: ["toolCallId", "toolName", "args", "digest"],
        properties: {
          toolCallId: id,
          toolName: text,
          args: true,
          reason: text,
          digest: hex64,
          subRun: subRunRef,
        },
        additionalProperties: false,
      },
    },
    external: {
      type: "array",
      items: {
        type: "object",
        required: ["toolCallId", "toolName", "args", "digest"],
        properties: {
          toolCallId: id,
          toolName: text,
          args: true,
          digest: hex64,
          subRun: subRunRef,
        },
        additionalProperties: false,
      },
    },
    parent: {
      type: "object",
      required: ["runId", "toolCallId"],
      properties: { runId: id, toolCallId: id },
      additionalProperties: false,
    },
    agent: text, // the agent holding the run
    endedBy: {
      type: "object",
      required: ["id", "name", "args", "rawArgs"],
      properties: { id, name: text, args: true, rawArgs: text },
      additionalProperties: false,
    },
    signature: hex64,
  },
  additionalProperties: false,
} as const;

/** The JSON Schema of a list of messages, as a state's `messages` hold them. */
export const MESSAGES_SCHEMA = { type: "array", items: message } as const;
