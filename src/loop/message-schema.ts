type StateCheck = typeof import("../state/state-check.js");

let loaded: StateCheck | undefined;

/**
 * Whether the state's message schema has loaded. It loads (and with it @cfworker/json-schema)
 * where user code may first hand the loop messages to check: before `prepareStep`, the
 * pre-model hooks and a handoff's input filter are first asked. A loop without these never
 * loads it; a resumed run loads it with its checks.
 */
export function messageSchemaReady(): boolean {
  return loaded !== undefined;
}

/** Loads the state's message schema; `messagesProblem` may be called once it resolves. */
export function loadMessageSchema(): Promise<void> {
  return import("../state/state-check.js").then((schema) => {
    loaded = schema;
  });
}

/**
 * Checks messages against the state's message schema: `undefined` when they fit, else the
 * first problem. Every caller reads them after `loadMessageSchema`.
 */
export function messagesProblem(messages: unknown): string | undefined {
  if (!loaded) {
    throw new Error("tollgate: messages were read before the state's schema loaded (a bug)");
  }
  return loaded.messagesProblem(messages);
}
