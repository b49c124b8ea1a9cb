import { isPromise, later, type MaybePromise } from "../util/maybe-promise.js";
import type { VerdictRead } from "./verdict.js";

/**
 * Asks a hook (pre- or post-call) and reads its verdict, failing closed: what `ask` throws, a
 * rejection, a getter that throws while the verdict is read, and a malformed verdict all become
 * the chain's error (`threw` for the first three, `malformed` for the last). Synchronous while
 * the hook answers synchronously.
 */
export function askHook<V>(
  ask: () => unknown,
  read: (answer: unknown) => VerdictRead<V>,
  threw: (error: unknown) => Error,
  malformed: (problem: string) => Error,
): MaybePromise<V | undefined> {
  let answer: unknown;
  let isLater: boolean;
  try {
    answer = ask();
    isLater = isPromise(answer); // reads `then`, which a verdict's getter may make throw
  } catch (error) {
    throw threw(error);
  }
  const take = (settled: unknown): V | undefined => {
    let verdict: VerdictRead<V>;
    try {
      verdict = read(settled);
    } catch (error) {
      throw threw(error); // a getter on the verdict threw
    }
    if (verdict.ok) return verdict.verdict;
    throw malformed(verdict.problem);
  };
  if (!isLater) return take(answer);
  return later(answer as PromiseLike<unknown>, take, (error: unknown) => {
    throw threw(error);
  });
}
