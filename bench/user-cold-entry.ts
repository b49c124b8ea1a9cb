/**
 * Section 9's cold child: `node user-cold-entry.mjs kind:calls:runs` prints a reading (see
 * user-cold.ts); with `--profile-dir=DIR` after it (`npm run bench -- --profile=user-cold`), it
 * profiles tollgate's first 300 1-call runs instead.
 */
import { userColdChild } from "./user-cold.js";

const profileDir = process.argv[3]?.startsWith("--profile-dir=")
  ? process.argv[3].slice("--profile-dir=".length)
  : undefined;
if (profileDir) {
  const { coldProfileChild } = await import("./profile.js");
  await coldProfileChild(profileDir, 300);
} else {
  await userColdChild(process.argv[2] ?? "");
}
