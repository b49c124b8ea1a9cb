/** Section 9's cold child: `node user-cold-entry.mjs kind:calls:runs` (see user-cold.ts). */
import { userColdChild } from "./user-cold.js";

await userColdChild(process.argv[2] ?? "");
