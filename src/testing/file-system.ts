import { builtinModule } from "../util/builtin-module.js";

/** What cassettes use of `node:fs` and `node:path`. */
export interface CassetteFiles {
  existsSync(path: string): boolean;
  mkdirSync(path: string, options: { recursive: true }): unknown;
  readFileSync(path: string, encoding: "utf8"): string;
  writeFileSync(path: string, text: string): void;
  renameSync(from: string, to: string): void;
  rmSync(path: string, options: { force: true }): void;
  dirname(path: string): string;
}

let files: CassetteFiles | undefined;

/**
 * The file functions cassettes need, taken from the runtime on first use through
 * `process.getBuiltinModule` (Node ≥ 20.16, Bun, Deno). `tollgate/testing` therefore imports no
 * `node:` module, and its fakes run where there is no file system (workerd); only a cassette
 * needs one, and says so when there is none.
 */
export function cassetteFiles(): CassetteFiles {
  if (files) return files;
  const fs = builtinModule("node:fs");
  const path = builtinModule("node:path");
  if (!fs || !path) {
    throw new TypeError(
      "cassettes read and write files: this runtime has no node:fs through process.getBuiltinModule (Node 20.16 or later, Bun and Deno have it)",
    );
  }
  files = {
    existsSync: fs.existsSync,
    mkdirSync: fs.mkdirSync,
    readFileSync: fs.readFileSync,
    writeFileSync: fs.writeFileSync,
    renameSync: fs.renameSync,
    rmSync: fs.rmSync,
    dirname: path.dirname,
  };
  return files;
}
