/**
 * `npm run bench` — measures tollgate side by side with the AI SDK, OpenAI agents-core and a
 * hand-written floor, and rewrites BENCHMARKS.md.
 *
 *   npm run bench                      full run (a few minutes), writes BENCHMARKS.md
 *   npm run bench -- --quick           smoke run (seconds), writes $TMPDIR/tollgate-BENCHMARKS.quick.md
 *   npm run bench -- --only=loop,sse   some sections only (loop stream scaling memory size sse otel stores user stalls)
 *   npm run bench -- --only=stalls --stall-chars=4000   section 10 on answers of 4,000 characters
 *   npm run bench -- --out=FILE        write the report elsewhere
 *   npm run bench -- --profile=loop    CPU profile of tollgate alone (loop | stream | user-cold)
 *   npm run bench -- --promise-sites=loop   where tollgate's promises come from (loop | stream)
 *   npm run bench -- --over-floor=http-chat  tollgate's HTTP client CPU ÷ fetch alone's, in one process
 *
 * A partial run (--quick, --only) never writes BENCHMARKS.md unless --out says so.
 *
 * Under tsx this file installs the peers into bench/node_modules when they are missing or stale
 * (peers.ts), compiles the bench and runs the bundle with plain node (compile.ts says why); it
 * imports nothing of tollgate or the peers until it runs compiled. Compiled, it runs the report
 * (report.ts), or one of the child jobs the report and --profile start.
 */

import { spawnSync } from "node:child_process";
import { copyFileSync, mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { BUNDLED, compileColdChild, makeBuildDir, relaunch } from "./compile.js";
import { ensurePeers } from "./peers.js";
import { topSelfTime } from "./profile.js";

/**
 * `--profile=user-cold`: section 9's cold child (user-cold.ts), compiled on its own, profiles
 * its window into `dir`; its bundle and chunks are copied beside the profile, whose top self
 * time is printed. Returns the exit code.
 */
async function profileColdChild(dir: string): Promise<number> {
  const build = makeBuildDir();
  try {
    const entry = await compileColdChild(build.dir);
    const child = spawnSync(process.execPath, [entry, "tollgate:1:300", `--profile-dir=${dir}`], {
      stdio: "inherit",
    });
    if (child.status !== 0) return child.status ?? 1;
    for (const name of readdirSync(build.dir)) {
      if (name.endsWith(".mjs")) copyFileSync(join(build.dir, name), join(dir, name));
    }
    const bundle = join(dir, basename(entry));
    console.log(
      `profile: ${join(dir, "user-cold.cpuprofile")} (bundle: ${bundle})\ntop self time:`,
    );
    // Mapped through the chunks where they ran (the copies keep them for later).
    for (const line of topSelfTime(join(dir, "user-cold.cpuprofile"), entry)) console.log(line);
    return 0;
  } finally {
    build.dispose();
  }
}

const option = (name: string) =>
  process.argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3);

if (!BUNDLED) {
  ensurePeers();
  const profile = option("profile");
  if (profile) {
    const dir = mkdtempSync(join(tmpdir(), "tollgate-profile-"));
    // user-cold profiles only its window, through node:inspector, in section 9's cold child.
    process.exitCode =
      profile === "user-cold"
        ? await profileColdChild(dir)
        : await relaunch(
            [`--profile-child=${profile}`, `--seconds=${option("seconds") ?? "5"}`],
            ["--cpu-prof", `--cpu-prof-dir=${dir}`],
            (bundle) => {
              const file = readdirSync(dir).find((name) => name.endsWith(".cpuprofile"))!;
              // The bundle goes beside the profile: its `// src/…` headers name each line's source.
              copyFileSync(bundle, join(dir, "bench.mjs"));
              console.log(
                `profile: ${join(dir, file)} (bundle: ${join(dir, "bench.mjs")})\ntop self time:`,
              );
              for (const line of topSelfTime(join(dir, file), bundle)) console.log(line);
            },
          );
  } else if (option("promise-sites")) {
    process.exitCode = await relaunch([`--promise-sites-child=${option("promise-sites")}`]);
  } else if (option("over-floor")) {
    process.exitCode = await relaunch([
      `--over-floor-child=${option("over-floor")}`,
      `--rounds=${option("rounds") ?? "14"}`,
    ]);
  } else {
    process.exitCode = await relaunch(process.argv.slice(2));
  }
} else if (option("section-child")) {
  const { sectionChild } = await import("./report.js");
  await sectionChild(option("section-child")!);
} else if (option("memory-child")) {
  const { memoryChild } = await import("./memory.js");
  await memoryChild(Number(option("memory-child")));
} else if (option("promises-child")) {
  const { promisesChild } = await import("./promises.js");
  await promisesChild(option("promises-child") as "loop" | "stream", Number(option("deltas")));
} else if (option("over-floor-child")) {
  const { overFloorChild } = await import("./profile.js");
  await overFloorChild(option("over-floor-child")!, Number(option("rounds") ?? 14));
} else if (option("promise-sites-child")) {
  const { promiseSites } = await import("./profile.js");
  await promiseSites(option("promise-sites-child")!);
} else if (option("profile-child")) {
  const { profileChild } = await import("./profile.js");
  await profileChild(option("profile-child")!, Number(option("seconds") ?? 5));
} else {
  const { main } = await import("./report.js");
  await main();
}
