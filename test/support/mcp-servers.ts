import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../../", import.meta.url));
/** The everything server's launcher, from node_modules. */
export const EVERYTHING = `${root}node_modules/@modelcontextprotocol/server-everything/dist/index.js`;
/** The filesystem server, from node_modules. */
export const FILESYSTEM = `${root}node_modules/@modelcontextprotocol/server-filesystem/dist/index.js`;
const LOOPBACK = fileURLToPath(new URL("./mcp-loopback.mjs", import.meta.url));

/** The everything server over stdio, as `mcpTools` starts it. */
export const everythingStdio = () => ({
  command: process.execPath,
  args: [EVERYTHING, "stdio"],
  stderr: "ignore" as const,
});

/** The filesystem server over stdio on `dir`. */
export const filesystemStdio = (dir: string) => ({
  command: process.execPath,
  args: [FILESYSTEM, dir],
  stderr: "ignore" as const,
});

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** The everything server over Streamable HTTP on 127.0.0.1 and a free port; `stop()` ends it. */
export async function startEverythingHttp(): Promise<{ url: string; stop(): Promise<void> }> {
  const port = await freePort();
  const child: ChildProcess = spawn(
    process.execPath,
    ["--import", LOOPBACK, EVERYTHING, "streamableHttp"],
    { env: { ...process.env, PORT: String(port) }, stdio: ["ignore", "ignore", "pipe"] },
  );
  await new Promise<void>((resolve, reject) => {
    let seen = "";
    child.stderr!.on("data", (chunk) => {
      seen += String(chunk);
      if (seen.includes("listening on port")) resolve();
    });
    child.once("exit", (code) => reject(new Error(`server exited (${code}): ${seen}`)));
  });
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill();
      await exited;
    },
  };
}
