/**
 * The thread of `startReferenceServiceThread` (`service-thread.ts`): starts the reference service
 * with the options it was given, says where it listens (or why it could not), and closes it when
 * asked; once closed, nothing is left to keep the thread alive and it ends.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { ConfigError, ListenError } from '../core/errors.js';
import type { ReferenceServiceOptions } from './options.js';
import { startReferenceService, type ReferenceService } from './service.js';
import type { FromServiceThread, ServiceThreadFailure, ToServiceThread } from './service-thread.js';

/** The fields of what the start threw, as they can cross. */
function failureOf(err: unknown): ServiceThreadFailure {
  if (!(err instanceof Error)) return { name: 'Error', message: String(err) };
  const e = err as Error & Partial<Record<'code' | 'syscall' | 'address', unknown>> & Partial<Record<'errno' | 'port', unknown>>;
  const text = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
  const num = (v: unknown): number | undefined => (typeof v === 'number' ? v : undefined);
  // A taken address: the ListenError's own fields and its cause's (Node's `listen EADDRINUSE`).
  const cause = err instanceof ListenError && err.cause instanceof Error ? (err.cause as Error & Partial<Record<'code' | 'syscall', unknown>> & Partial<Record<'errno', unknown>>) : undefined;
  return {
    name: e.name,
    message: e.message,
    code: text(e.code),
    listen: err instanceof ListenError ? { host: err.host, port: err.port, causeCode: text(cause?.code), causeMessage: cause?.message ?? err.reason, errno: num(cause?.errno), syscall: text(cause?.syscall) } : undefined,
    issues: err instanceof ConfigError ? err.issues : undefined,
    errno: num(e.errno),
    syscall: text(e.syscall),
    address: text(e.address),
    port: num(e.port),
  };
}

const port = parentPort;
if (port !== null) {
  const post = (m: FromServiceThread): void => port.postMessage(m);
  let service: ReferenceService | undefined;
  port.on('message', (m: ToServiceThread) => {
    if (m.type !== 'close') return;
    void (service?.close() ?? Promise.resolve()).finally(() => {
      post({ type: 'closed' });
      port.close();
    });
  });
  try {
    service = await startReferenceService(workerData as ReferenceServiceOptions);
    const { baseUrl, webhookHost, port: listening, adminToken, tokens } = service;
    post({ type: 'ready', baseUrl, webhookHost, port: listening, adminToken, tokens: { free: tokens.free, pro: tokens.pro, enterprise: tokens.enterprise } });
  } catch (err) {
    post({ type: 'failed', error: failureOf(err) });
    port.close();
  }
}
