/** A free TCP port on 127.0.0.1, for a server a test starts outside this process (Prometheus, nginx). */
import { createServer } from 'node:net';

/** Listens on port 0, reads the port the kernel chose, and closes. */
export async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}
