/**
 * Section 9's cold child: `node user-cold-entry.mjs kind:calls:runs` prints a reading (see
 * user-cold.ts); with `--profile-dir=DIR` after it (`npm run bench -- --profile=user-cold`), it
 * profiles that window instead.
 */
import { parseColdSpec, userColdChild } from "./user-cold.js";

const spec = parseColdSpec(process.argv[2] ?? "");
const profileDir = process.argv[3]?.startsWith("--profile-dir=")
  ? process.argv[3].slice("--profile-dir=".length)
  : undefined;
if (profileDir) {
  const { coldProfileChild } = await import("./profile.js");
  await coldProfileChild(profileDir, spec);
} else {
  await userColdChild(spec);
}
