import { tool } from "tollgate";
import { z } from "zod";

/** A tool that answers its `text` back: the plainest tool a test can offer. */
export const echo = tool({
  name: "echo",
  input: z.object({ text: z.string() }),
  execute: ({ text }) => text,
});
