/**
 * A Node built-in module taken from the runtime at run time through `process.getBuiltinModule`
 * (Node ≥ 20.16, Bun, Deno), or undefined where there is none (workerd, browsers, older Node).
 * Code that needs `node:` only on some paths uses it instead of importing, so the entries that
 * run everywhere import no `node:` module.
 */
export function builtinModule(id: string): any {
  const load = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process
    ?.getBuiltinModule;
  return typeof load === "function" ? load(id) : undefined;
}
