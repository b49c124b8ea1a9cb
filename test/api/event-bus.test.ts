import { describe, expect, it } from "vitest";
import { EventBus } from "../../src/api/event-bus.js";
import type { LoopEvent } from "../../src/types/events.js";

const start = (runId: string): LoopEvent => ({ type: "run-start", runId, resumed: false });

describe("EventBus", () => {
  it("delivers an event to the listeners of its type, in the order they were added", () => {
    const bus = new EventBus(undefined, () => {});
    const heard: string[] = [];
    bus.on("run-start", (event) => heard.push(`a:${event.runId}`));
    bus.on("step-start", () => heard.push("never"));
    bus.on("run-start", (event) => heard.push(`b:${event.runId}`));
    bus.emit(start("r1"));
    expect(heard).toEqual(["a:r1", "b:r1"]);
    expect(bus.listensTo("run-start")).toBe(true);
    expect(bus.listensTo("run-finish")).toBe(false);
  });

  it("an event being delivered goes to the listeners it started with", () => {
    const bus = new EventBus(undefined, () => {});
    const heard: string[] = [];
    let offSecond = () => {};
    bus.on("run-start", (event) => {
      heard.push(`first:${event.runId}`);
      offSecond();
      bus.on("run-start", (later) => heard.push(`added:${later.runId}`));
    });
    offSecond = bus.on("run-start", (event) => heard.push(`second:${event.runId}`));
    bus.emit(start("r1"));
    // Removed during r1 but r1 started with it; added during r1, it hears r2 on.
    expect(heard).toEqual(["first:r1", "second:r1"]);
    bus.emit(start("r2"));
    expect(heard.slice(2)).toEqual(["first:r2", "added:r2"]);
  });

  it("the same function added twice is two listeners, each removed by its own function", () => {
    const bus = new EventBus(undefined, () => {});
    let calls = 0;
    const listener = () => {
      calls++;
    };
    const offOne = bus.on("run-start", listener);
    const offTwo = bus.on("run-start", listener);
    bus.emit(start("r1"));
    expect(calls).toBe(2);
    offOne();
    offOne(); // a second call removes nothing more
    bus.emit(start("r2"));
    expect(calls).toBe(3);
    offTwo();
    bus.emit(start("r3"));
    expect(calls).toBe(3);
    expect(bus.listening).toBe(false);
    expect(bus.listensTo("run-start")).toBe(false);
  });

  it("onEvent hears every type, first; a listener's throw goes to the error handler", () => {
    const errors: unknown[] = [];
    const heard: string[] = [];
    const bus = new EventBus(
      (event) => {
        heard.push(`all:${event.type}`);
      },
      (error) => errors.push(error),
    );
    bus.on("run-start", () => {
      throw new Error("boom");
    });
    bus.on("run-start", () => heard.push("next"));
    bus.emit(start("r1"));
    expect(heard).toEqual(["all:run-start", "next"]);
    expect(errors).toEqual([new Error("boom")]);
    expect(bus.listensTo("step-finish")).toBe(true);
  });
});
