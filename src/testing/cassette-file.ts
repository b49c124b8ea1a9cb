import type { ModelResponse, ModelStreamPart } from "tollgate";
import { TollgateError } from "tollgate";
import { type Json, stableJson } from "./cassette-json.js";
import { cassetteFiles } from "./file-system.js";

/** What a cassette records of the provider, so a replay looks the same to the loop. */
export interface CassetteProvider {
  name: string;
  model: string;
  supportsNativeOutput?: boolean;
}

/** One model call: the request the loop sent (redacted, as JSON) and what came back. */
export type CassetteCall = {
  /** The run, counted from 0 in the order runs first called the provider. */
  run: number;
  /** The step of that run (`ProviderCallOptions.step`). */
  step: number;
  request: Json;
} & (
  | { kind: "generate"; response: Omit<ModelResponse, "raw"> }
  | { kind: "stream"; parts: ModelStreamPart[] }
);

/** A cassette file: format version, the provider, and every call in the order it finished. */
export interface Cassette {
  tollgateCassette: 1;
  provider: CassetteProvider;
  /** The `redact` paths it was recorded with; a replay redacts the loop's requests the same way. */
  redact?: string[];
  calls: CassetteCall[];
}

/** The error of a cassette that cannot be used: missing, unreadable, drifted, or run past its end. */
export class CassetteError extends TollgateError {
  /** The cassette file. */
  readonly path: string;
  constructor(message: string, path: string, options?: { cause?: unknown }) {
    super(message, options);
    this.path = path;
  }
}

/** Writes the cassette atomically (a temporary file, then a rename), creating its folder. */
export function writeCassette(path: string, cassette: Cassette): void {
  const { mkdirSync, dirname, writeFileSync, renameSync, rmSync } = cassetteFiles();
  const temporary = `${path}.${process.pid}.${Date.now()}.tmp`;
  try {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(temporary, stableJson(cassette as unknown as Json));
    renameSync(temporary, path);
  } catch (error) {
    try {
      rmSync(temporary, { force: true }); // no half-written file is left beside the cassette
    } catch {
      // Nothing more to clean.
    }
    throw new CassetteError(
      `cassette ${path} cannot be written (${(error as Error).message}); check that its folder can be made and written, and that the path is not a folder`,
      path,
      { cause: error },
    );
  }
}

/** Reads and checks a cassette file; anything unexpected is a `CassetteError` naming the file. */
export function readCassette(path: string): Cassette {
  let text: string;
  try {
    text = cassetteFiles().readFileSync(path, "utf8");
  } catch (error) {
    throw new CassetteError(
      `cassette ${path} cannot be read (${(error as Error).message}); record it once by running the test with TOLLGATE_CASSETTES=record`,
      path,
      { cause: error },
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new CassetteError(`cassette ${path} is not JSON: ${(error as Error).message}`, path, {
      cause: error,
    });
  }
  const problem = cassetteProblem(value);
  if (problem !== undefined) {
    throw new CassetteError(`cassette ${path} is not a tollgate cassette: ${problem}`, path);
  }
  return value as Cassette;
}

const isObject = (value: unknown): value is Record<string, any> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

function cassetteProblem(value: unknown): string | undefined {
  if (!isObject(value)) return "it is not an object";
  if (value.tollgateCassette !== 1) return "its tollgateCassette version is not 1";
  const { provider, calls } = value;
  if (
    !isObject(provider) ||
    typeof provider.name !== "string" ||
    typeof provider.model !== "string"
  )
    return "its provider has no name and model";
  if (!Array.isArray(calls)) return "it has no calls list";
  if (
    value.redact !== undefined &&
    !(Array.isArray(value.redact) && value.redact.every((p: unknown) => typeof p === "string"))
  )
    return "its redact is not a list of paths";
  for (const [index, call] of calls.entries()) {
    const ok =
      isObject(call) &&
      Number.isInteger(call.run) &&
      Number.isInteger(call.step) &&
      isObject(call.request) &&
      ((call.kind === "generate" &&
        isObject(call.response) &&
        Array.isArray(call.response.parts)) ||
        (call.kind === "stream" && Array.isArray(call.parts)));
    if (!ok) return `calls[${index}] is not { run, step, request, kind, response | parts }`;
  }
  return undefined;
}
