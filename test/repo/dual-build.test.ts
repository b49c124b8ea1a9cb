import {
  AgentLoop,
  HookError,
  RetryError,
  TollgateError,
  ToolRetriesExceededError,
  tool,
} from "tollgate";
import { scriptedProvider } from "tollgate/testing";
import { describe, expect, it } from "vitest";
import { z } from "zod";

/**
 * An app that loads tollgate's ESM entry in one file and its CommonJS entry in another holds two
 * copies of every error class. A second instance of the errors module stands in for the other
 * build here (the query makes Vite load the file again, as a module of its own).
 */
const otherBuild: string = "../../src/errors.js?other-build";
const other = (await import(/* @vite-ignore */ otherBuild)) as typeof import("../../src/errors.js");

describe("errors from tollgate's other build", () => {
  it("the second copy is a class of its own, and instanceof still knows its errors", () => {
    expect(other.RetryError).not.toBe(RetryError);
    const retry = new other.RetryError("try a city name");
    expect(retry instanceof RetryError).toBe(true);
    expect(retry instanceof TollgateError).toBe(true);
    expect(retry instanceof HookError).toBe(false);
    expect(new RetryError("x") instanceof other.RetryError).toBe(true);
    expect(new Error("plain") instanceof RetryError).toBe(false);
    expect({ name: "RetryError" } instanceof RetryError).toBe(false);
  });

  it("a class of the same name that is not tollgate's is not taken for one", () => {
    class RetryErrorLookalike extends Error {}
    Object.defineProperty(RetryErrorLookalike, "name", { value: "RetryError" });
    expect(new RetryErrorLookalike("x") instanceof RetryError).toBe(false);
  });

  it("a RetryError thrown from the other build counts against the tool's retries", async () => {
    const lookup = tool({
      name: "lookup",
      input: z.object({ city: z.string() }),
      maxRetries: 1,
      execute: () => {
        throw new other.RetryError("no such city; try another");
      },
    });
    const call = { name: "lookup", args: { city: "Atlantis" } };
    const loop = new AgentLoop({
      provider: scriptedProvider([{ toolCalls: [call] }, { toolCalls: [call] }, { text: "?" }]),
      tools: [lookup],
    });
    await expect(loop.run("go")).rejects.toBeInstanceOf(ToolRetriesExceededError);
  });
});
