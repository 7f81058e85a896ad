/**
 * `startReferenceServiceThread`: the reference service in a worker thread of its own, so a load
 * generator in this thread, lagging under load, does not make the service late too: its
 * timings (time to first token, inter-token gaps) are its own. The options cross to the thread
 * as a structured clone, so a `clock` (or an `onRequest` callback) cannot: programs and tests
 * that inject them use `startReferenceService` in their own thread.
 */
import { Worker } from 'node:worker_threads';
import { ConfigError, FlowgaugeError, InvalidArgumentError, ListenError, type ConfigIssue, type FlowgaugeErrorCode } from '../core/errors.js';
import { hideSecrets } from './hide-secrets.js';
import { resolveReferenceOptions, type ReferenceServiceOptions } from './options.js';
import type { ReferenceService } from './service.js';
import { packageFile } from '../core/package-root.js';

/** A reference service running in its own thread: what a client of it needs, and `close()`. */
export interface ReferenceServiceThread extends Pick<ReferenceService, 'baseUrl' | 'webhookHost' | 'port' | 'adminToken' | 'tokens' | 'close'> {
  /** The service's thread (`worker_threads.threadId`), never this one's. */
  readonly threadId: number;
}

/** What the thread is told. */
export type ToServiceThread = { readonly type: 'close' };

/** A failure to start, as it crosses from the thread: the fields of the error thrown there. */
export interface ServiceThreadFailure {
  readonly name: string;
  readonly message: string;
  readonly code?: string | undefined;
  /** A `ConfigError`'s problems. */
  readonly issues?: readonly ConfigIssue[] | undefined;
  /** A `ListenError`'s address and its cause's fields (`listen EADDRINUSE`). */
  readonly listen?:
    | { readonly host: string; readonly port: number; readonly causeCode?: string | undefined; readonly causeMessage: string; readonly errno?: number | undefined; readonly syscall?: string | undefined }
    | undefined;
  /** A system error's fields (`EADDRINUSE` from `listen`). */
  readonly errno?: number | undefined;
  readonly syscall?: string | undefined;
  readonly address?: string | undefined;
  readonly port?: number | undefined;
}

/** What the thread answers. */
export type FromServiceThread =
  | { readonly type: 'ready'; readonly baseUrl: string; readonly webhookHost: string; readonly port: number; readonly adminToken: string; readonly tokens: ReferenceService['tokens'] }
  | { readonly type: 'failed'; readonly error: ServiceThreadFailure }
  | { readonly type: 'closed' };

/** Test seams: another entry (a thread that misbehaves), a shorter wait at close. */
export interface ServiceThreadInternals {
  readonly entry?: URL;
  /** How long `close()` waits for the thread to end by itself before terminating it (default 5 s). */
  readonly closeWaitMs?: number;
}

/** The thread's entry, the same file in a checkout and in the package. */
const ENTRY = packageFile('bin/flowgauge-service.mjs');

/** A thread that has not ended this long after it was asked to is terminated: `close()` never hangs. */
const CLOSE_WAIT_MS = 5000;

/** Options that are functions (or hold them) cannot cross to another thread. */
const IN_THREAD_ONLY = ['clock', 'onRequest'] as const;

const FG_CODES: ReadonlySet<string> = new Set<FlowgaugeErrorCode>([
  'FG_CONFIG_INVALID',
  'FG_INVALID_ARGUMENT',
  'FG_FILE_NOT_FOUND',
  'FG_TARGET_UNREACHABLE',
  'FG_TARGET_PROTOCOL',
  'FG_REPORT_INVALID',
  'FG_HISTORY_UNREADABLE',
  'FG_INTERRUPTED',
  'FG_OUTPUT_FAILED',
  'FG_INTERNAL',
]);

/** The error the thread failed with, built again here as the service in this thread would have thrown it. */
function rebuilt(f: ServiceThreadFailure): Error {
  if (f.issues !== undefined) {
    const e = new ConfigError(f.issues);
    e.message = f.message;
    return e;
  }
  if (f.listen !== undefined) {
    const l = f.listen;
    const cause = Object.assign(new Error(l.causeMessage), { code: l.causeCode, errno: l.errno, syscall: l.syscall }) as NodeJS.ErrnoException;
    return new ListenError(f.message, { host: l.host, port: l.port }, cause);
  }
  if (f.code !== undefined && FG_CODES.has(f.code)) {
    const e = f.code === 'FG_INVALID_ARGUMENT' ? new InvalidArgumentError(f.message) : new FlowgaugeError(f.code as FlowgaugeErrorCode, f.message);
    e.name = f.name;
    return e;
  }
  // A system error (`listen EADDRINUSE`): the same fields as Node's own.
  const e = new Error(f.message) as Error & Record<string, unknown>;
  e.name = f.name;
  for (const k of ['code', 'errno', 'syscall', 'address', 'port'] as const) if (f[k] !== undefined) e[k] = f[k];
  return e;
}

/**
 * Starts the reference service in a worker thread and resolves once it listens. Throws what
 * `startReferenceService` throws for the same options (a `ConfigError` for invalid ones, a
 * `ListenError` for a port in use), and `InvalidArgumentError` for an option that cannot cross to
 * another thread (`clock`, `onRequest`). Like a listening server, the thread keeps the process
 * alive until `close()`, which ends its server, sockets and timers, and the thread with them
 * (terminated if it has not ended within a few seconds); it dies with the process in any case.
 */
export async function startReferenceServiceThread(options: ReferenceServiceOptions = {}, internals: ServiceThreadInternals = {}): Promise<ReferenceServiceThread> {
  for (const k of IN_THREAD_ONLY) {
    if (options[k] !== undefined) throw new InvalidArgumentError(`the reference service's ${k} option cannot cross to its own thread; start it in this thread (startReferenceService) to give a ${k}`);
  }
  // Invalid options fail here, at once, as in this thread; the thread's start can only fail at listen.
  resolveReferenceOptions(options);
  let worker: Worker;
  try {
    worker = new Worker(internals.entry ?? ENTRY, { workerData: options });
  } catch (err) {
    if (err instanceof Error && err.name === 'DataCloneError') throw new InvalidArgumentError(`the reference service's options cannot cross to its own thread: ${err.message}`);
    throw err;
  }
  let exited = false;
  const ended = new Promise<void>((resolve) =>
    worker.once('exit', () => {
      exited = true;
      resolve();
    }),
  );
  const ready = await new Promise<Extract<FromServiceThread, { type: 'ready' }>>((resolve, reject) => {
    worker.once('message', (m: FromServiceThread) => {
      if (m.type === 'ready') resolve(m);
      else if (m.type === 'failed') reject(rebuilt(m.error));
      else reject(new FlowgaugeError('FG_INTERNAL', `the reference service's thread answered ${m.type} before it started`));
    });
    worker.once('error', (err) => reject(new FlowgaugeError('FG_INTERNAL', `the reference service's thread failed to start: ${err.message}`, { cause: err })));
    void ended.then(() => reject(new FlowgaugeError('FG_INTERNAL', "the reference service's thread ended before it started")));
  }).catch(async (err: unknown) => {
    await worker.terminate();
    throw err;
  });
  // A failure after the start (the thread's own crash) shows as requests that fail: data, not a throw here.
  worker.on('error', () => undefined);

  let closing: Promise<void> | undefined;
  const waitMs = internals.closeWaitMs ?? CLOSE_WAIT_MS;
  const handle = {
    baseUrl: ready.baseUrl,
    webhookHost: ready.webhookHost,
    port: ready.port,
    threadId: worker.threadId,
    close(): Promise<void> {
      closing ??= (async () => {
        if (exited) return;
        const timer = setTimeout(() => void worker.terminate(), waitMs);
        worker.postMessage({ type: 'close' } satisfies ToServiceThread);
        await ended;
        clearTimeout(timer);
      })();
      return closing;
    },
  };
  const tokens = hideSecrets({}, ready.tokens, '[redacted]') as ReferenceService['tokens'];
  const shown = { service: 'flowgauge reference service', baseUrl: ready.baseUrl, webhookHost: ready.webhookHost, port: ready.port, threadId: worker.threadId };
  return hideSecrets(handle, { adminToken: ready.adminToken, tokens }, shown) as unknown as ReferenceServiceThread;
}
