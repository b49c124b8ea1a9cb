import { builtinModule } from "../util/builtin-module.js";

/** The part of `@cedar-policy/cedar-wasm` this entry calls (its Node build). */
export type CedarWasm = typeof import("@cedar-policy/cedar-wasm/nodejs");

/** Held in a variable so that bundlers leave the optional peer to the user's install. */
const CEDAR_WASM = "@cedar-policy/cedar-wasm/nodejs";

const INSTALL = "npm install @cedar-policy/cedar-wasm";

/**
 * Loads `@cedar-policy/cedar-wasm`'s Node build (CommonJS, so one `require` serves the ESM and
 * the CommonJS build of this entry) with `load`, or throws an `Error` that says to install it.
 */
export function loadCedarWasm(load: ((id: string) => unknown) | undefined): CedarWasm {
  if (load === undefined) {
    throw new Error(
      `tollgate/cedar runs @cedar-policy/cedar-wasm in process and needs Node 20.16+, Bun or Deno (process.getBuiltinModule); install it with \`${INSTALL}\``,
    );
  }
  try {
    return load(CEDAR_WASM) as CedarWasm;
  } catch (error) {
    throw new Error(
      `tollgate/cedar needs the optional peer @cedar-policy/cedar-wasm (^4.13), which could not be loaded (${(error as Error).message}); install it with \`${INSTALL}\``,
      { cause: error },
    );
  }
}

/**
 * A synchronous `require` made by `node:module`'s `createRequire`, from where this file is (the
 * ESM build's URL, or the CommonJS build's `__filename`); undefined where the runtime has none.
 */
export function nodeRequire(): ((id: string) => unknown) | undefined {
  const createRequire = builtinModule("node:module")?.createRequire;
  const from: string | undefined =
    import.meta.url ?? (typeof __filename === "string" ? __filename : undefined);
  return typeof createRequire === "function" && from ? createRequire(from) : undefined;
}
