/**
 * An endpoint that accepts connections, reads what is sent and never answers: the hanging
 * Pushgateway or OTLP collector an exporter must give up on. It says when a request arrived
 * and when the client let go of its connection (the attempt abandoned).
 */
import { createServer, type Server, type Socket } from 'node:net';

/** A running silent server. */
export interface SilentServer {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  /** Connections accepted so far. */
  connections(): number;
  /** Connections the client has closed (or reset). */
  closedByClient(): number;
  /** Resolves with the time (performance.now) the first request's bytes arrived. */
  firstRequest(): Promise<number>;
  close(): Promise<void>;
}

/** Starts one on a free loopback port. */
export async function startSilentServer(): Promise<SilentServer> {
  const sockets = new Set<Socket>();
  let accepted = 0;
  let closed = 0;
  let first: number | undefined;
  const waiting: ((t: number) => void)[] = [];
  const server: Server = createServer((socket) => {
    accepted++;
    sockets.add(socket);
    socket.on('data', () => {
      if (first === undefined) {
        first = performance.now();
        waiting.splice(0).forEach((w) => w(first as number));
      }
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      closed++;
      sockets.delete(socket);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}`,
    connections: () => accepted,
    closedByClient: () => closed,
    firstRequest: () => (first !== undefined ? Promise.resolve(first) : new Promise((r) => waiting.push(r))),
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}
