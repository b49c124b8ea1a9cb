import { checkKeys, shownValue } from "../util/option-keys.js";

/** The SQL names of one store: the table, its token sequence and its index, quoted. */
export interface StoreNames {
  /** The table, schema-qualified when a schema was given. */
  readonly table: string;
  /** The sequence the fencing tokens come from. */
  readonly sequence: string;
  /** The partial index of paused runs (an index lives in its table's schema: unqualified). */
  readonly pendingIndex: string;
  /** The schema, quoted, when one was given. */
  readonly schema: string | undefined;
  /** The unquoted `schema.table`, for the migration's advisory lock and for messages. */
  readonly plain: string;
}

/** The default table name. */
export const DEFAULT_TABLE = "tollgate_runs";

/** An unquoted lower-case identifier, short enough to take the `_token_seq` suffix within 63 bytes. */
const IDENTIFIER = /^[a-z_][a-z0-9_]{0,47}$/;

/** The table and schema names of a store's options, checked and quoted. */
export function namesOf(
  where: string,
  options: { table?: string | undefined; schema?: string | undefined },
): StoreNames {
  const table = identifierOf(where, "table", options.table ?? DEFAULT_TABLE);
  const schema =
    options.schema === undefined ? undefined : identifierOf(where, "schema", options.schema);
  const qualify = (name: string) => (schema === undefined ? `"${name}"` : `"${schema}"."${name}"`);
  return {
    table: qualify(table),
    sequence: qualify(`${table}_token_seq`),
    pendingIndex: `"${table}_pending"`,
    schema: schema === undefined ? undefined : `"${schema}"`,
    plain: schema === undefined ? table : `${schema}.${table}`,
  };
}

function identifierOf(where: string, option: string, value: unknown): string {
  if (typeof value !== "string" || !IDENTIFIER.test(value)) {
    throw new TypeError(
      `${where}: ${option} must be a lower-case SQL name (letters, digits, _; at most 48), not ${shownValue(value)}`,
    );
  }
  return value;
}

/** Checks a store function's options object: unknown keys are a TypeError with a did-you-mean. */
export function checkedOptions<Options extends object>(
  where: string,
  options: Options | undefined,
  known: readonly string[],
): Partial<Options> {
  if (options === undefined) return {};
  checkKeys(where, options, known);
  return options;
}
