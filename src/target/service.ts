/**
 * `startReferenceService`: builds the state, listens on `host:port` and returns a handle whose
 * `close()` ends the server, every socket, every pending timer and every delivery.
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { NS_PER_MS } from '../core/clock.js';
import { ListenError } from '../core/errors.js';
import { TIER_LIMITS_PER_MINUTE } from '../core/tiers.js';
import { createUsageLedger } from './analytics.js';
import { createCatalogue, flowsFromSpecs, seedFlows } from './catalogue.js';
import { createFaultEngine, type FaultController } from './faults.js';
import { hideSecrets } from './hide-secrets.js';
import { createTokenState } from './limiters.js';
import { createNotifier } from './notifier.js';
import { resolveReferenceOptions, type ReferenceServiceOptions, type ResolvedReferenceOptions } from './options.js';
import { handleRequest } from './pipeline.js';
import { createPrng, hash32 } from './prng.js';
import { createRunEngine, type RunRecord } from './runs.js';
import { createSessionStore } from './sessions.js';
import type { ServiceState, TokenState } from './state.js';
import { createStats, snapshotStats, type ServiceStats, type StatsCounters } from './stats.js';
import { createTimerSet } from './timers.js';

/** A running reference service. Tokens are not enumerable and never printed or serialised. */
export interface ReferenceService {
  /** `http://127.0.0.1:<port>/v1` */
  readonly baseUrl: string;
  /** `http://127.0.0.1:<port>`; the trigger lives at `/api/v1/webhook/{flow_id}`. */
  readonly webhookHost: string;
  readonly port: number;
  /** Bearer token of `/admin/faults`. */
  readonly adminToken: string;
  /** The first configured token of each tier (`''` when none has that tier). */
  readonly tokens: { readonly free: string; readonly pro: string; readonly enterprise: string };
  /** Sets faults in-process (same effect as the admin endpoint). */
  readonly faults: FaultController;
  /** Counters of what the service has done. */
  readonly stats: () => ServiceStats;
  /** Closes the server, all sockets, pending timers and deliveries. */
  close(): Promise<void>;
}

function urlHost(host: string): string {
  if (host === '0.0.0.0' || host === '::' || host === '') return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}

function tierTokens(opts: ResolvedReferenceOptions): { free: string; pro: string; enterprise: string } {
  const out = { free: '', pro: '', enterprise: '' };
  for (const [token, t] of opts.tokens) {
    const key = t.tier === 'free' ? 'free' : t.tier === 'pro' ? 'pro' : 'enterprise';
    if (out[key] === '') out[key] = token;
  }
  return out;
}

/** `data` of a run notification, from the run's state at the moment of the event. */
function runData(run: RunRecord, output: string): Record<string, unknown> {
  // At start nothing is produced yet; reading the clock here could settle the run early.
  const k = run.status === 'running' ? 0 : run.produced;
  return {
    run_id: run.id,
    flow_id: run.flowId,
    status: run.status,
    output,
    usage: { total_tokens: run.promptTokens + k, prompt_tokens: run.promptTokens, completion_tokens: k },
    error: run.error,
  };
}

/** Starts the reference service. Throws `ConfigError` for invalid options, `ListenError` when its address is taken. */
export async function startReferenceService(options: ReferenceServiceOptions = {}): Promise<ReferenceService> {
  const opts = resolveReferenceOptions(options);
  const { clock, seed } = opts;
  const server = createServer({ keepAlive: true, noDelay: true, keepAliveTimeout: 65_000 });
  server.headersTimeout = 66_000;
  await new Promise<void>((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException): void =>
      reject(new ListenError(`reference service: cannot listen on ${opts.host}:${opts.port} (${err.code ?? err.message})`, { host: opts.host, port: opts.port }, err));
    server.once('error', onError);
    server.listen(opts.port, opts.host, () => {
      server.off('error', onError);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const webhookHost = `http://${urlHost(opts.host)}:${port}`;
  const baseUrl = `${webhookHost}/v1`;

  const stats: StatsCounters = createStats();
  const timers = createTimerSet(clock);
  const prng = createPrng(hash32('service', seed));
  const windowNs = opts.rateLimit.windowMs * NS_PER_MS;
  const tokens = new Map<string, TokenState>();
  for (const [token, t] of opts.tokens) tokens.set(token, createTokenState(t.account, t.limit));
  const nowMs = clock.wallMs();
  const flows = typeof opts.flows === 'number' ? seedFlows(opts.accounts, opts.flows, seed, nowMs) : flowsFromSpecs(opts.flows, nowMs);
  const notifier = createNotifier({
    receivers: opts.notifications,
    eventNames: opts.eventNames,
    clock,
    timers,
    prng: createPrng(hash32('deliveries', seed)),
    stats,
    ...opts.delivery,
  });
  const limits = { maxRecords: opts.maxRecords, maxBytes: opts.maxRecordBytes };
  const sessions = createSessionStore(createPrng(hash32('sessions', seed)), limits);
  const ledger = createUsageLedger();
  const requestPrefix = `req_${createPrng(hash32('requests', seed)).hex(6)}`;
  let requestCount = 0;

  const state: ServiceState = {
    opts,
    clock,
    baseUrl,
    tokens,
    adminToken: opts.adminToken ?? `fg_admin_${randomBytes(12).toString('hex')}`,
    windowNs,
    anonLimit: Math.max(1, Math.round((TIER_LIMITS_PER_MINUTE.free * opts.rateLimit.windowMs) / 60_000)),
    catalogue: createCatalogue(flows, baseUrl),
    runs: createRunEngine({
      clock,
      timers,
      prng,
      seed,
      latency: opts.latency,
      failureRate: opts.failureRate,
      limits,
      hooks: {
        started(run) {
          stats.runs.started++;
          if (notifier.enabled) notifier.emit('run.started', runData(run, ''), run.id);
        },
        finished(run) {
          const ok = run.status === 'completed';
          if (ok) stats.runs.completed++;
          else stats.runs.failed++;
          const durationMs = (run.endNs - run.startNs) / NS_PER_MS;
          ledger.record(run.account, run.flowId, run.createdAtMs, ok, run.promptTokens + run.produced, durationMs);
          const session = ok && run.sessionId !== undefined ? sessions.get(run.sessionId) : undefined;
          // The text is rebuilt only when something keeps or sends it.
          const output = session !== undefined || notifier.enabled ? state.runs.output(run) : '';
          if (session !== undefined) sessions.append(session, 'assistant', output, state.runs.completedAtMs(run));
          if (notifier.enabled) notifier.emit(ok ? 'run.completed' : 'run.failed', runData(run, output), run.id);
        },
      },
    }),
    sessions,
    ledger,
    notifier,
    faults: createFaultEngine(clock, seed, opts.faults),
    stats,
    timers,
    nextRequestId: () => `${requestPrefix}${(++requestCount).toString(36).padStart(6, '0')}`,
  };
  server.on('request', (req, res) => handleRequest(state, req, res));

  let closing: Promise<void> | undefined;
  const engine = state.faults;
  const service = {
    baseUrl,
    webhookHost,
    port,
    faults: { get: () => engine.get(), set: (p) => engine.set(p), clear: () => engine.clear() } satisfies FaultController,
    stats: (): ServiceStats => ({ ...snapshotStats(stats), records: { runs: state.runs.held(), sessions: sessions.held() } }),
    close(): Promise<void> {
      closing ??= (async () => {
        timers.closeAll();
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeAllConnections();
        await notifier.close();
        await closed;
      })();
      return closing;
    },
  };
  const tierToks = hideSecrets({}, tierTokens(opts), '[redacted]') as ReferenceService['tokens'];
  const shown = { service: 'flowgauge reference service', baseUrl, webhookHost, port };
  return hideSecrets(service, { adminToken: state.adminToken, tokens: tierToks }, shown) as unknown as ReferenceService;
}
