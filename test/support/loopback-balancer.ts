/**
 * A tiny TCP proxy on 127.0.0.1 that spreads the connections it accepts across some ports of
 * 127.0.0.1, round-robin: one Restate deployment URL in front of several SDK endpoint processes.
 * Each connection goes to one target for its life (an HTTP/2 connection carries many
 * invocations: how many connections the client opens decides how far work spreads). A target
 * that refuses is skipped; with none left the connection is closed, as a dead endpoint's would be.
 */
import { createConnection, createServer, type Socket } from "node:net";

/** A running balancer. */
export interface LoopbackBalancer {
  /** `http://127.0.0.1:<port>`, the URL to register. */
  readonly url: string;
  /** Adds a target port (again after a restart is fine). */
  add(port: number): void;
  /** Removes a target port; its open connections stay. */
  remove(port: number): void;
  /** Connections given to each target so far. */
  connections(): Map<number, number>;
  /** Stops listening and closes every open connection. */
  close(): Promise<void>;
}

/** Starts a balancer on a free port of 127.0.0.1, with no targets yet. */
export function startLoopbackBalancer(): Promise<LoopbackBalancer> {
  const targets: number[] = [];
  const given = new Map<number, number>();
  const open = new Set<Socket>();
  let turn = 0;

  /** Connects `incoming` to the next target that accepts; closes it when none does. */
  const forward = (incoming: Socket, tries: number) => {
    if (incoming.destroyed) return;
    if (tries >= targets.length) {
      incoming.destroy();
      return;
    }
    const port = targets[turn++ % targets.length]!;
    const upstream = createConnection({ host: "127.0.0.1", port });
    open.add(upstream);
    upstream.once("close", () => open.delete(upstream));
    let connected = false;
    let refused = false;
    upstream.on("error", () => {
      if (connected) incoming.destroy();
      else if (!refused) {
        refused = true;
        forward(incoming, tries + 1);
      }
    });
    upstream.once("connect", () => {
      connected = true;
      given.set(port, (given.get(port) ?? 0) + 1);
      incoming.pipe(upstream);
      upstream.pipe(incoming);
      incoming.once("close", () => upstream.destroy());
      upstream.once("close", () => incoming.destroy());
    });
  };

  const server = createServer((incoming) => {
    open.add(incoming);
    incoming.once("close", () => open.delete(incoming));
    incoming.on("error", () => incoming.destroy());
    incoming.pause();
    forward(incoming, 0);
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      resolve({
        url: `http://127.0.0.1:${port}`,
        add(target) {
          if (!targets.includes(target)) targets.push(target);
        },
        remove(target) {
          const at = targets.indexOf(target);
          if (at >= 0) targets.splice(at, 1);
        },
        connections: () => new Map(given),
        close: () =>
          new Promise<void>((done) => {
            for (const socket of open) socket.destroy();
            server.close(() => done());
          }),
      });
    });
  });
}
