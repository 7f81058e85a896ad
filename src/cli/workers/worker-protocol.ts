/**
 * What the main thread and the workers of `flowgauge run --workers N` say to each other. Every
 * message is plain data (structured-cloned by `postMessage`).
 */
import type { ClientOptions } from '../../api/index.js';
import type { Report } from '../../report/index.js';
import type { FollowOptions, RunProgress } from '../../run/index.js';
import type { ScenarioOverrides } from '../../scenario/index.js';

/** A worker's whole brief, given as its `workerData`. */
export interface WorkerInput {
  /** The scenario file: each worker loads it itself (a journey is code, and code is not sent). */
  readonly file: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly overrides: ScenarioOverrides;
  readonly shard: { readonly index: number; readonly count: number };
  readonly target: { readonly baseUrl: string; readonly embedded: boolean };
  /** The token of every scenario without one of its own. Never printed. */
  readonly token: string;
  /** Tokens by scenario name (tenants). */
  readonly tokens: Readonly<Record<string, string>>;
  /** This worker's share of the connections, per scenario name and in all. */
  readonly connections: { readonly total: number; readonly byScenario: Readonly<Record<string, number>> };
  /** TLS trust, headers, proxy, transport, webhook host: the same for every client. */
  readonly client: Omit<ClientOptions, 'baseUrl' | 'token' | 'connections'>;
  readonly follow: FollowOptions | false;
}

/** From a worker. */
export type FromWorker =
  | { readonly type: 'ready' }
  | { readonly type: 'progress'; readonly progress: RunProgress }
  | { readonly type: 'done'; readonly report: Report; readonly dataExhausted: readonly string[] }
  | { readonly type: 'failed'; readonly error: { readonly name: string; readonly code: string | undefined; readonly message: string } };

/** To a worker: start the schedule (every worker is prepared), or stop and drain. */
export type ToWorker = { readonly type: 'go' } | { readonly type: 'stop' };
