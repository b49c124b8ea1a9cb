/**
 * The `noNetwork()` switch of `tollgate/testing`, shared by every entry (each is its own bundle)
 * through a `globalThis` slot under a registered symbol. The value is how many guards are on.
 */
export const NO_NETWORK = Symbol.for("tollgate.noNetwork");

type Slot = { [NO_NETWORK]?: number };

/** How many `noNetwork()` guards are on now (0: requests may go out). */
export const noNetworkCount = (): number => (globalThis as Slot)[NO_NETWORK] ?? 0;

/** Sets how many guards are on. */
export function setNoNetworkCount(count: number): void {
  if (count > 0) (globalThis as Slot)[NO_NETWORK] = count;
  else delete (globalThis as Slot)[NO_NETWORK];
}

/**
 * The message a real adapter throws while `noNetwork()` is on, naming the adapter and how to
 * test offline instead; `undefined` while requests may go out. Read at each request.
 */
export function noNetworkRefusal(adapter: string): string | undefined {
  if (noNetworkCount() === 0) return undefined;
  return `${adapter}: a real model request while noNetwork() is on, so nothing was sent. Test offline instead: replay a cassette (cassette(provider, "cassettes/<name>.json") from tollgate/testing), recorded once by running the test with TOLLGATE_CASSETTES=record (noNetwork() stays off while recording), or use a fake (scriptedProvider, functionProvider)`;
}
