/**
 * Whether OpenAI's strict structured outputs accept a JSON Schema as it is: every object
 * closes itself (`additionalProperties: false`) and requires each of its properties. Adapters
 * send `strict: true` only then; otherwise the schema still guides the model, and the loop's
 * validation is what holds the answer to it.
 */
export function isStrictSchema(schema: unknown): boolean {
  if (Array.isArray(schema)) return schema.every(isStrictSchema);
  if (typeof schema !== "object" || schema === null) return true;
  const node = schema as Record<string, unknown>;
  const properties = node.properties;
  if (node.type === "object" || properties !== undefined) {
    if (node.additionalProperties !== false) return false;
    const keys = Object.keys((properties as object | undefined) ?? {});
    const required = Array.isArray(node.required) ? node.required : [];
    if (!keys.every((key) => required.includes(key))) return false;
  }
  return Object.entries(node).every(
    ([key, value]) =>
      key === "enum" || key === "const" || key === "default" || isStrictSchema(value),
  );
}
