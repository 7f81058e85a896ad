/**
 * The request a capacity sweep repeats for one operation: method, address, headers and body,
 * built from the ids the run's preparation resolved (a published flow, a session, a run).
 * The token goes only into the `authorization` header; `toJSON` and `util.inspect` hide it.
 */
import { inspect } from 'node:util';
import { InvalidArgumentError } from '../core/errors.js';
import type { OpName } from '../core/ops.js';

/** One request shape, as autocannon takes it. */
export interface CapacityRequest {
  readonly op: OpName;
  readonly method: 'GET' | 'POST';
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string | undefined;
}

/** Ids the request may need. */
export interface CapacityIds {
  readonly flowId: string;
  readonly sessionId?: string | undefined;
  readonly runId?: string | undefined;
}

/** Where the requests go. */
export interface CapacityTarget {
  /** API address ending in /v1, without a trailing slash. */
  readonly baseUrl: string;
  /** Trigger host (origin and optional path prefix), without a trailing slash. */
  readonly webhookHost: string;
  readonly token: string;
}

const INPUT = JSON.stringify({ input: 'Summarise the benefits of load testing in one sentence.' });

/** Builds the request of `op`. Throws `InvalidArgumentError` when an id it needs is missing. */
export function capacityRequest(op: OpName, target: CapacityTarget, ids: CapacityIds): CapacityRequest {
  const base = target.baseUrl.replace(/\/+$/, '');
  const flow = encodeURIComponent(ids.flowId);
  const json = { 'content-type': 'application/json', accept: 'application/json' };
  const auth = { authorization: `Bearer ${target.token}` };
  const need = (id: string | undefined, what: string): string => {
    if (id === undefined || id === '') throw new InvalidArgumentError(`capacity ${op}: no ${what} to address`);
    return encodeURIComponent(id);
  };
  let r: Omit<CapacityRequest, 'op'>;
  switch (op) {
    case 'listFlows':
      r = { method: 'GET', url: `${base}/flows`, headers: { ...auth, accept: 'application/json' }, body: undefined };
      break;
    case 'getFlow':
      r = { method: 'GET', url: `${base}/flows/${flow}`, headers: { ...auth, accept: 'application/json' }, body: undefined };
      break;
    case 'run':
      r = { method: 'POST', url: `${base}/flows/${flow}/run`, headers: { ...auth, ...json }, body: INPUT };
      break;
    case 'stream':
      r = { method: 'POST', url: `${base}/flows/${flow}/stream`, headers: { ...auth, ...json, accept: 'text/event-stream' }, body: INPUT };
      break;
    case 'getRun':
      r = { method: 'GET', url: `${base}/runs/${need(ids.runId, 'run')}`, headers: { ...auth, accept: 'application/json' }, body: undefined };
      break;
    case 'createSession':
      r = { method: 'POST', url: `${base}/sessions`, headers: { ...auth, ...json }, body: JSON.stringify({ flow_id: ids.flowId, user_id: 'flowgauge', metadata: { source: 'flowgauge-capacity' } }) };
      break;
    case 'getHistory':
      r = { method: 'GET', url: `${base}/sessions/${need(ids.sessionId, 'session')}/history`, headers: { ...auth, accept: 'application/json' }, body: undefined };
      break;
    case 'getUsage':
      r = { method: 'GET', url: `${base}/analytics/usage`, headers: { ...auth, accept: 'application/json' }, body: undefined };
      break;
    case 'trigger':
      // The trigger address's authentication is not stated; like the client, send no bearer.
      r = { method: 'POST', url: `${target.webhookHost.replace(/\/+$/, '')}/api/v1/webhook/${flow}`, headers: json, body: JSON.stringify({ message: 'flowgauge capacity' }) };
      break;
  }
  const request: CapacityRequest = { op, ...r };
  const shown = { op, method: r.method, url: r.url };
  Object.defineProperty(request, 'toJSON', { value: () => shown });
  Object.defineProperty(request, inspect.custom, { value: () => `CapacityRequest ${inspect(shown)}` });
  return Object.freeze(request);
}
