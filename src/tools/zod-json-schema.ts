import * as z4 from "zod/v4/core";
import type { zodToJsonSchema } from "zod-to-json-schema";
import { builtinModule } from "../util/builtin-module.js";
import { applicatorsTo, SUBSCHEMA_LIST } from "../util/json-schema-keywords.js";
import { DEFAULT_SOURCE } from "./complete-args.js";

type JsonObject = Record<string, unknown>;

/** Where in a schema a type with no JSON form sits ("items", "[]", "*" for any key) and what it is. */
interface NoJsonForm {
  path: string[];
  kind: string;
}

/**
 * The JSON Schema of a zod 4 schema's input side, the shape the model must send. A type with
 * no JSON Schema form (`z.date()`, `z.map()`, ...) is a `TypeError` naming its path.
 */
export function zod4JsonSchema(schema: z4.$ZodType, toolName: string): JsonObject {
  const sources: Array<() => unknown> = [];
  try {
    const json = z4.toJSONSchema(schema, {
      io: "input",
      unrepresentable: "throw",
      override: (ctx) => markDefault(ctx.zodSchema, ctx.jsonSchema, sources),
    }) as JsonObject;
    return sources.length === 0 ? json : attachDefaultSources(json, sources);
  } catch (error) {
    const found = findNoJsonForm4(schema);
    if (found) throw noJsonFormError(toolName, found, error);
    throw new TypeError(
      `tool "${toolName}": the input schema has no JSON Schema form: ${(error as Error).message}`,
      { cause: error },
    );
  }
}

/** A key zod copies with the node (a symbol it would drop), replaced by `DEFAULT_SOURCE` after. */
const SOURCE_MARK = "x-tollgate-default-source";

/**
 * Notes where a zod 4 `.default()` or `.prefault()` sits: its default may be computed per parse
 * (`.default(() => crypto.randomUUID())`), so completing args reads zod's own value each call
 * rather than the one the JSON Schema caught.
 */
function markDefault(
  zod: z4.$ZodType,
  json: Record<string, unknown>,
  sources: Array<() => unknown>,
): void {
  const { def } = zod._zod;
  if ((def.type !== "default" && def.type !== "prefault") || !("default" in json)) return;
  const withDefault = def as z4.$ZodDefaultDef;
  json[SOURCE_MARK] = sources.push(() => withDefault.defaultValue) - 1;
}

/** Moves each mark (on every copy zod made of the node) to a hidden `DEFAULT_SOURCE`. */
function attachDefaultSources(node: JsonObject, sources: Array<() => unknown>): JsonObject {
  const mark = node[SOURCE_MARK];
  if (typeof mark === "number") {
    delete node[SOURCE_MARK];
    Object.defineProperty(node, DEFAULT_SOURCE, { value: sources[mark] });
  }
  for (const value of Object.values(node)) {
    if (typeof value === "object" && value !== null)
      attachDefaultSources(value as JsonObject, sources);
  }
  return node;
}

/** Finds the first unrepresentable type and its path (zod >= 4.2 reports paths to a handler). */
function findNoJsonForm4(schema: z4.$ZodType): NoJsonForm | undefined {
  let found: NoJsonForm | undefined;
  try {
    z4.toJSONSchema(schema, {
      io: "input",
      unrepresentable: (ctx: { zodSchema: z4.$ZodType; path: (string | number)[] }) => {
        found ??= { path: fieldPath(ctx.path), kind: ctx.zodSchema._zod.def.type };
        return "any";
      },
    } as never);
  } catch {
    // an older zod 4 without the handler: the message will have no path
  }
  return found;
}

/** Lists of subschemas the value itself must match (`anyOf`, `oneOf`, `allOf`): their indexes name no field. */
const IN_PLACE_LISTS: ReadonlySet<string> = new Set(
  applicatorsTo("value").filter((keyword) => SUBSCHEMA_LIST.includes(keyword)),
);

/** `["properties", "a", "items"]` → `["a", "[]"]`: the JSON Schema path as the user wrote the fields. */
function fieldPath(path: (string | number)[]): string[] {
  const fields: string[] = [];
  for (let i = 0; i < path.length; i++) {
    const segment = path[i];
    if (segment === "properties") fields.push(String(path[++i]));
    else if (segment === "prefixItems") fields.push(`[${path[++i]}]`);
    else if (segment === "items" || segment === "additionalItems") fields.push("[]");
    else if (segment === "additionalProperties") fields.push("*");
    else if (IN_PLACE_LISTS.has(String(segment))) i++;
    else fields.push(String(segment));
  }
  return fields;
}

/** A zod 3 schema: its `_def` names its type. */
interface Zod3Schema {
  _def: { typeName?: string } & Record<string, any>;
}

const ZOD3_NO_JSON_FORM = new Set([
  "ZodDate",
  "ZodBigInt",
  "ZodMap",
  "ZodSet",
  "ZodSymbol",
  "ZodFunction",
  "ZodPromise",
  "ZodUndefined",
  "ZodVoid",
  "ZodNaN",
  "ZodNever",
]);

/**
 * The JSON Schema of a zod 3 schema's input side, by zod-to-json-schema (which gives an empty
 * schema for zod 4). Types it would describe wrongly (`z.date()` as a string) or not at all are
 * a `TypeError` naming their path.
 */
export function zod3JsonSchema(schema: Zod3Schema, toolName: string): JsonObject {
  const found = findNoJsonForm3(schema, [], new Set());
  if (found) throw noJsonFormError(toolName, found);
  return loadZodToJsonSchema(toolName)(schema as never, {
    $refStrategy: "none",
    effectStrategy: "input",
    pipeStrategy: "input",
    postProcess: (json, def) => {
      // zod 3's default may be computed per parse: completing args asks it each call.
      const zod3 = def as Zod3Schema["_def"];
      if (json && zod3.typeName === "ZodDefault" && "default" in json) {
        Object.defineProperty(json, DEFAULT_SOURCE, { value: () => zod3.defaultValue() });
      }
      return json;
    },
  }) as JsonObject;
}

let converter: typeof zodToJsonSchema | undefined;

/**
 * zod-to-json-schema, loaded on the first zod 3 schema (it loads `zod/v3`, which a zod 4 user
 * never needs). `tool()` is synchronous, so it is required, not imported, by `createRequire`
 * from `process.getBuiltinModule` (Node ≥ 20.16, Bun, Deno). A runtime without it (workerd, a
 * browser bundle, Node before 20.16) gets a `TypeError` saying what to write instead.
 */
function loadZodToJsonSchema(toolName: string): typeof zodToJsonSchema {
  if (converter) return converter;
  const load = nodeRequire();
  const instead =
    'use zod 4 (zod 3.25 ships it as "zod/v4"), or give the JSON Schema yourself: jsonSchema(theJsonSchema, yourZod3Schema)';
  if (!load) {
    throw new TypeError(
      `tool "${toolName}": a zod 3 schema is turned into JSON Schema by zod-to-json-schema, which this runtime cannot load synchronously (it has no process.getBuiltinModule, as Node 20.16+, Bun and Deno have); ${instead}`,
    );
  }
  try {
    converter = (load(ZOD_TO_JSON_SCHEMA) as { zodToJsonSchema: typeof zodToJsonSchema })
      .zodToJsonSchema;
  } catch (error) {
    throw new TypeError(
      `tool "${toolName}": a zod 3 schema needs zod-to-json-schema, which could not be loaded (${(error as Error).message}); ${instead}`,
      { cause: error },
    );
  }
  return converter;
}

/** Held in a variable so that bundlers leave it out of the core: it is loaded only for zod 3. */
const ZOD_TO_JSON_SCHEMA = "zod-to-json-schema";

type Require = (id: string) => unknown;

/**
 * A synchronous `require` made by `node:module`'s `createRequire`, from where this file is (the
 * ESM build's URL, or the CommonJS build's `__filename`); undefined where the runtime has no
 * `process.getBuiltinModule`. (The bare `require` is not used: bundlers replace it in ESM.)
 */
function nodeRequire(): Require | undefined {
  const createRequire = builtinModule("node:module")?.createRequire;
  const from: string | undefined =
    import.meta.url ?? (typeof __filename === "string" ? __filename : undefined);
  return typeof createRequire === "function" && from ? (createRequire(from) as Require) : undefined;
}

function findNoJsonForm3(
  schema: Zod3Schema,
  path: string[],
  seen: Set<Zod3Schema>,
): NoJsonForm | undefined {
  if (seen.has(schema)) return undefined;
  seen.add(schema);
  const typeName = schema._def.typeName ?? "";
  if (ZOD3_NO_JSON_FORM.has(typeName)) return { path, kind: typeName.slice(3).toLowerCase() };
  for (const [segment, child] of zod3Children(schema._def)) {
    const found = findNoJsonForm3(child, segment === undefined ? path : [...path, segment], seen);
    if (found) return found;
  }
  return undefined;
}

/** The schemas inside a zod 3 schema, each with the path segment that leads to it (none for wrappers). */
function zod3Children(def: Zod3Schema["_def"]): Array<[string | undefined, Zod3Schema]> {
  switch (def.typeName) {
    case "ZodObject": {
      const fields = Object.entries(def.shape() as Record<string, Zod3Schema>);
      const catchall = def.catchall as Zod3Schema | undefined;
      const open = catchall && catchall._def.typeName !== "ZodNever" ? [["*", catchall]] : [];
      return [...fields, ...open] as Array<[string, Zod3Schema]>;
    }
    case "ZodArray":
      return [["[]", def.type]];
    case "ZodTuple":
      return [
        ...(def.items as Zod3Schema[]).map((item, i): [string, Zod3Schema] => [`[${i}]`, item]),
        ...(def.rest ? [["[]", def.rest] as [string, Zod3Schema]] : []),
      ];
    case "ZodRecord":
      return [["*", def.valueType]];
    case "ZodUnion":
    case "ZodDiscriminatedUnion":
      return [...(Array.isArray(def.options) ? def.options : def.options.values())].map(
        (option: Zod3Schema): [undefined, Zod3Schema] => [undefined, option],
      );
    case "ZodIntersection":
      return [
        [undefined, def.left],
        [undefined, def.right],
      ];
    case "ZodLazy":
      return [[undefined, def.getter()]];
    case "ZodEffects":
      return [[undefined, def.schema]];
    case "ZodPipeline":
      return [[undefined, def.in]];
    case "ZodBranded":
      return [[undefined, def.type]];
    case "ZodOptional":
    case "ZodNullable":
    case "ZodDefault":
    case "ZodCatch":
    case "ZodReadonly":
      return [[undefined, def.innerType]];
    default:
      return [];
  }
}

/** What each type without a JSON form is, and what to write instead. */
const INSTEAD: Readonly<Record<string, readonly [what: string, instead: string]>> = {
  date: [
    "a Date",
    "write an ISO date string, z.iso.datetime() (zod 3: z.string().datetime()), with .transform((s) => new Date(s)) if execute needs a Date",
  ],
  bigint: [
    "a BigInt",
    "write z.string() or z.number().int(), with .transform(BigInt) if execute needs a bigint",
  ],
  map: ["a Map", "write z.record(keySchema, valueSchema)"],
  set: ["a Set", "write z.array(itemSchema)"],
  undefined: ["undefined", "make the field .optional(), or leave it out"],
  void: ["void", "make the field .optional(), or leave it out"],
  nan: ["NaN", "write z.number()"],
  custom: [
    "a z.custom() type",
    "write a schema with a JSON form, or describe it yourself with jsonSchema(theJsonSchema, yourSchema)",
  ],
  function: ["a function", "leave the field out: a model sends only JSON"],
  symbol: ["a symbol", "leave the field out: a model sends only JSON"],
  promise: ["a Promise", "write the schema of the awaited value"],
  never: ["never", "leave the field out (.strict() on the object rejects unknown keys)"],
  literal: [
    "a literal JSON cannot hold",
    "write a string, number, boolean or null literal, or make the field .optional()",
  ],
};

function noJsonFormError(toolName: string, found: NoJsonForm, cause?: unknown): TypeError {
  const [what, instead] = INSTEAD[found.kind] ?? ["a type", "write a schema with a JSON form"];
  const where =
    found.path.length > 0 ? `input field \`${formatFieldPath(found.path)}\`` : "`input` itself";
  return new TypeError(
    `tool "${toolName}": ${where} is ${what}, which has no JSON Schema form, so a model cannot send it; instead, ${instead}`,
    { cause },
  );
}

/** `["items", "[]", "when"]` → `items[].when`. */
function formatFieldPath(path: string[]): string {
  let text = "";
  for (const segment of path) text += segment.startsWith("[") || !text ? segment : `.${segment}`;
  return text;
}
