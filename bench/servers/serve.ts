/**
 * The lifecycle every bench server shares: long keep-alive (generators hold connections for a
 * whole case), `READY <json>` on stdout once listening (read by bench/lib/proc.ts), and a clean
 * exit on SIGTERM/SIGINT.
 */
import type { Server } from 'node:http';

/** Listens on a free loopback port and announces it with `extra` fields. */
export function serve(server: Server, extra: Readonly<Record<string, unknown>> = {}): void {
  server.keepAliveTimeout = 120_000;
  server.headersTimeout = 130_000;
  server.requestTimeout = 0;
  server.listen(0, '127.0.0.1', () => {
    const addr = server.address();
    const port = typeof addr === 'object' && addr !== null ? addr.port : 0;
    process.stdout.write(`READY ${JSON.stringify({ port, ...extra })}\n`);
  });
  const stop = (): void => {
    server.close();
    server.closeAllConnections();
    process.exit(0);
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}
