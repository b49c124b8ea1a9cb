import type {
  ListenerErrorHandler,
  LoopEvent,
  LoopEventType,
  LoopListener,
} from "../types/events.js";
import { EVENT_NAMES, isEventType } from "../util/event-names.js";
import { closest } from "../util/option-keys.js";

/**
 * Throws a `TypeError` unless `type` names an event: a listener for `tool-decison` would never
 * be called, and nothing would say so.
 */
export function checkEventType(where: string, type: unknown): asserts type is LoopEventType {
  if (isEventType(type)) return;
  const names = EVENT_NAMES;
  const near = typeof type === "string" ? closest(type, names) : undefined;
  const hint = near ? `did you mean "${near}"? ` : "";
  throw new TypeError(
    `${where}: no event is named ${typeof type === "string" ? `"${type}"` : String(type)}; ${hint}the events are ${names.map((name) => `"${name}"`).join(", ")}`,
  );
}

/**
 * Delivers events to `onEvent` and `on()` listeners, shielding the run from whatever a
 * listener throws, synchronously or not.
 */
export class EventBus {
  /**
   * The `on()` listeners by event type; a type nobody listens to has no entry. A list is
   * replaced, never changed in place, so an event being delivered goes to the listeners it
   * started with: one added or removed meanwhile counts from the next event.
   */
  readonly #listeners = new Map<string, readonly ((event: LoopEvent) => void)[]>();
  readonly #onEvent: LoopListener | undefined;
  readonly #onError: ListenerErrorHandler;

  constructor(onEvent: LoopListener | undefined, onError: ListenerErrorHandler) {
    this.#onEvent = onEvent;
    this.#onError = onError;
  }

  /** Adds a listener for one event type; returns the function that removes it. */
  on<T extends LoopEventType>(type: T, listener: LoopListener<T>): () => void {
    const guarded = (event: LoopEvent) => this.#call(listener as unknown as LoopListener, event);
    this.#listeners.set(type, [...(this.#listeners.get(type) ?? []), guarded]);
    let removed = false;
    return () => {
      if (removed) return;
      removed = true;
      const left = this.#listeners.get(type)!.filter((one) => one !== guarded);
      if (left.length > 0) this.#listeners.set(type, left);
      else this.#listeners.delete(type);
    };
  }

  /** Whether anyone listens: `onEvent`, or a listener added with `on()`. */
  get listening(): boolean {
    return this.#onEvent !== undefined || this.#listeners.size > 0;
  }

  /**
   * Whether anyone listens to events of `type`: `onEvent`, or an `on(type)` listener. An event
   * nobody listens to is neither frozen nor copied (a run-finish copy walks the whole result).
   */
  listensTo(type: LoopEventType): boolean {
    return this.#onEvent !== undefined || this.#listeners.has(type);
  }

  /** Hands one event to every listener. */
  emit(event: LoopEvent): void {
    if (this.#onEvent) this.#call(this.#onEvent, event);
    const listeners = this.#listeners.get(event.type);
    if (listeners) for (const listener of listeners) listener(event);
  }

  #call(listener: LoopListener, event: LoopEvent): void {
    try {
      const returned = listener(event);
      if (returned instanceof Promise) returned.catch((error) => this.#report(error, event));
    } catch (error) {
      this.#report(error, event);
    }
  }

  #report(error: unknown, event: LoopEvent): void {
    try {
      this.#onError(error, event);
    } catch {
      // The error handler itself failed; there is nowhere left to report it, and the run goes on.
    }
  }
}
