import type { SchemaIssue } from "../types/validation-result.js";
import {
  KNOWN_KEYWORDS,
  ONE_SUBSCHEMA,
  SUBSCHEMA_LIST,
  SUBSCHEMA_MAP,
} from "../util/json-schema-keywords.js";
import { editDistance } from "../util/option-keys.js";

/**
 * Unknown keys that are near misses of a JSON Schema keyword (`requried`, `maxLenght`,
 * `additonalProperties`), anywhere in the schema. A validator ignores unknown keywords, as
 * the spec says, so such a typo silently relaxes what the gate checks: it is refused instead.
 * Names far from every keyword (vendor extensions like `x-order`) are left alone.
 */
export function keywordTypos(schema: unknown, path: PropertyKey[] = []): SchemaIssue[] {
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) return [];
  const issues: SchemaIssue[] = [];
  for (const [key, value] of Object.entries(schema)) {
    if (!KNOWN_KEYWORDS.has(key)) {
      const near = nearKeyword(key);
      if (near) {
        issues.push({
          message: `unknown keyword \`${key}\`; did you mean \`${near}\`?`,
          path: [...path, key],
        });
      }
      continue;
    }
    if (SUBSCHEMA_MAP.includes(key) && typeof value === "object" && value !== null) {
      for (const [name, sub] of Object.entries(value)) {
        issues.push(...keywordTypos(sub, [...path, key, name]));
      }
    } else if (SUBSCHEMA_LIST.includes(key) && Array.isArray(value)) {
      for (let index = 0; index < value.length; index++) {
        issues.push(...keywordTypos(value[index], [...path, key, index]));
      }
    } else if (ONE_SUBSCHEMA.includes(key)) issues.push(...keywordTypos(value, [...path, key]));
  }
  return issues;
}

function nearKeyword(key: string): string | undefined {
  if (key.length < 4 || key.startsWith("x-")) return undefined;
  let best: string | undefined;
  let bestDistance = 3;
  for (const keyword of KNOWN_KEYWORDS) {
    const distance = editDistance(key.toLowerCase(), keyword.toLowerCase());
    if (distance < bestDistance) {
      best = keyword;
      bestDistance = distance;
    }
  }
  // Two edits in a short word make another word; allow them only from 8 letters on.
  return bestDistance <= (key.length >= 8 ? 2 : 1) ? best : undefined;
}
