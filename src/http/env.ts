type EnvHost = {
  process?: { env?: Record<string, string | undefined> };
  Deno?: { env?: { get(name: string): string | undefined } };
};

/**
 * Reads an environment variable in Node, Bun or Deno, and `undefined` where there is no
 * environment (browsers, edge runtimes) or no permission to read it.
 */
export function readEnv(name: string): string | undefined {
  const host = globalThis as EnvHost;
  try {
    return host.process?.env?.[name] || host.Deno?.env?.get(name) || undefined;
  } catch {
    return undefined;
  }
}

/** The first of the named environment variables that is set. */
export const firstEnv = (names: readonly string[]): string | undefined =>
  names.map(readEnv).find((value) => value !== undefined);
