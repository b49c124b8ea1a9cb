import { build } from "esbuild";
import { gzipSync } from "node:zlib";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, basename } from "node:path";
const dir = mkdtempSync(join(tmpdir(), "split-"));
const r = await build({ stdin: { contents: process.argv[2] ?? 'export { AgentLoop, tool } from "./src/index.ts";', resolveDir: process.cwd(), loader: "ts" }, bundle: true, minify: true, format: "esm", platform: "node", target: "es2022", external: ["zod", "zod/*"], splitting: true, outdir: dir, write: false, metafile: true });
const size = Object.fromEntries(r.outputFiles.map((f) => [basename(f.path), [f.contents.length, gzipSync(f.contents, { level: 9 }).length]]));
const outs = r.metafile.outputs;
const key = (p) => basename(p);
const entry = Object.keys(outs).find((k) => outs[k].entryPoint);
const seen = new Set(); const stack = [entry];
while (stack.length) { const k = stack.pop(); if (seen.has(k)) continue; seen.add(k); for (const i of outs[k].imports) if (i.kind === "import-statement" && outs[i.path]) stack.push(i.path); }
let min = 0, gz = 0; for (const k of seen) { min += size[key(k)][0]; gz += size[key(k)][1]; }
console.log("entry closure:", [...seen].map(key).join(" "), "min", min, "gzip(sum of chunks)", gz);
let lmin = 0; for (const k of Object.keys(outs)) if (!seen.has(k)) lmin += size[key(k)][0];
console.log("lazy chunks min", lmin);
