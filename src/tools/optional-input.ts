/**
 * An input schema that lets the whole args be missing or `null` — zod's `.optional()`,
 * `.nullable()` or `.nullish()` around the object, or JSON Schema's `type: ["object", "null"]`
 * and `anyOf: [{ type: "object" }, { type: "null" }]`. A model always sends one JSON object, so
 * such a schema only hides the mistake (zod 4's JSON Schema for `.optional()` even says plain
 * `type: "object"`). Returns what `tool()`'s `TypeError` says, or `undefined`.
 */
export function optionalInputProblem(schema: unknown): string | undefined {
  const wrapper = zodWrapper(schema);
  if (wrapper === undefined) return undefined;
  return `is wrapped in ${wrapper}, but a model always sends its args as one JSON object (never none, never null). Instead, drop ${wrapper} and make the fields optional: z.object({ city: z.string().optional() }) (z.object({}) for a tool without args)`;
}

/** The same for a JSON Schema (any vendor's, or `jsonSchema()`'s): a top that allows `null`. */
export function nullableJsonProblem(schema: Record<string, unknown>): string | undefined {
  if (!allowsNullOrNothing(schema)) return undefined;
  return 'allows null (or nothing) at the top, but a model always sends its args as one JSON object. Instead, give `type: "object"` alone and leave the optional fields out of `required`';
}

/** `.optional()`, `.nullable()` or `.nullish()` when a zod 4 or zod 3 schema wraps its inner type so. */
function zodWrapper(schema: unknown): string | undefined {
  const outer = zodKind(schema);
  if (outer !== "optional" && outer !== "nullable") return undefined;
  const inner = zodKind(innerOf(schema));
  if (inner !== undefined && inner !== outer && (inner === "optional" || inner === "nullable")) {
    return ".nullish()";
  }
  return `.${outer}()`;
}

/** "optional", "nullable" or another zod kind (zod 4's `def.type`, zod 3's `typeName`). */
function zodKind(schema: unknown): string | undefined {
  const z4 = (schema as { _zod?: { def?: { type?: unknown } } } | undefined)?._zod?.def?.type;
  if (typeof z4 === "string") return z4;
  const z3 = (schema as { _def?: { typeName?: unknown } } | undefined)?._def?.typeName;
  if (z3 === "ZodOptional") return "optional";
  if (z3 === "ZodNullable") return "nullable";
  return typeof z3 === "string" ? z3 : undefined;
}

function innerOf(schema: unknown): unknown {
  const z4 = (schema as { _zod?: { def?: { innerType?: unknown } } })._zod?.def?.innerType;
  return z4 ?? (schema as { _def?: { innerType?: unknown } })._def?.innerType;
}

/** `type` lists "null"; or a union with a `null` branch (or zod 3's `{ not: {} }`, "nothing"). */
function allowsNullOrNothing(schema: Record<string, unknown>): boolean {
  if (Array.isArray(schema.type)) return schema.type.includes("null");
  for (const key of ["anyOf", "oneOf"]) {
    const branches = schema[key];
    if (Array.isArray(branches) && branches.some(isNullOrNothing)) return true;
  }
  return false;
}

function isNullOrNothing(branch: unknown): boolean {
  if (typeof branch !== "object" || branch === null) return false;
  const b = branch as Record<string, unknown>;
  if (b.type === "null") return true;
  const not = b.not;
  return typeof not === "object" && not !== null && Object.keys(not).length === 0;
}
