/**
 * `createClient`: the typed client, one transport per origin (`transport.ts`). The token lives
 * only in this closure (inside prebuilt header objects); the returned object shows `baseUrl`
 * and `webhookHost` to `util.inspect` and `JSON.stringify`, nothing else.
 *
 * Hot-path choices: header objects built once (so a transport serialises each set once),
 * paths built by concatenation, no per-request closures beyond the awaits.
 */
import { inspect } from 'node:util';
import type { z } from 'zod';
import { InvalidArgumentError } from '../core/errors.js';
import type { OpName } from '../core/ops.js';
import { BodyMemo } from './body-memo.js';
import type { Client, CallOptions, StreamCallOptions } from './client-types.js';
import { createH1Transport } from '../transport/h1-pool.js';
import { resolveClientOptions, USER_AGENT, type ClientOptions, type ResolvedClientOptions } from './options.js';
import { createRedactor } from './redact.js';
import { httpMethod, httpTarget, requestHttp } from './http-request.js';
import { queryString, requestJson, withCallHeaders, type RequestHeaders } from './request.js';
import type { ResponseContext } from './response.js';
import type { ApiResult } from './result.js';
import {
  flowListSchema,
  flowSchema,
  historySchema,
  runCompletionViolations,
  runSchema,
  runStatusBodySchema,
  sessionSchema,
  triggerAckSchema,
  usageStatsSchema,
} from './schemas.js';
import { runStream } from './sse-stream.js';
import { streamEvents } from './stream-events.js';
import type { Transport } from '../transport/transport.js';
import type { FlowList, ListAllFlowsQuery } from './types.js';
import { createUndiciTransport } from '../transport/undici-transport.js';
import { BodySampler } from './validate.js';

const JSON_TYPE = 'application/json';
/** Other origins one client sends `http` requests to (each holds a pool). */
const MAX_OTHER_ORIGINS = 16;
const MAX_PAGE_SIZE = 100;

/**
 * The transport for `origin`. The client's own HTTP/1.1 connections carry one request at a
 * time, so asking for pipelining picks undici, which does it.
 */
function createTransport(origin: string, o: ResolvedClientOptions): Transport {
  const own = o.transport === 'h1' || (o.transport === 'auto' && origin.startsWith('http:') && o.pipelining <= 1);
  return own ? createH1Transport(origin, o) : createUndiciTransport(origin, o);
}

function freezeHeaders(h: Record<string, string>): RequestHeaders {
  return Object.freeze(h);
}

declare const clientSpecBrand: unique symbol;

/**
 * A client's own options as plain data, to build the same client in another thread (the run's
 * worker threads): structured-cloneable, opaque outside this part (it holds the token).
 */
export interface ClientSpec {
  readonly [clientSpecBrand]: true;
}

/** Each client's options, for `clientSpecOf`; the clock stays behind (each thread has its own). */
const specs = new WeakMap<Client, Omit<ClientOptions, 'clock'>>();

/**
 * The options `client` was created with, its connections split over `threads` (rounded up, at
 * least one each), as a `ClientSpec` for `createClientFromSpec` in another thread; undefined for
 * an object `createClient` did not make.
 */
export function clientSpecOf(client: Client, threads = 1): ClientSpec | undefined {
  const own = specs.get(client);
  if (own === undefined) return undefined;
  return { ...own, connections: Math.max(1, Math.ceil((own.connections ?? 1) / threads)) } as unknown as ClientSpec;
}

/** The client a `ClientSpec` describes (on the system clock). */
export function createClientFromSpec(spec: ClientSpec): Client {
  return createClient(spec as unknown as ClientOptions);
}

/** Creates a client. Throws `ConfigError` for invalid options (never quoting the token). */
export function createClient(options: ClientOptions): Client {
  const o = resolveClientOptions(options);
  const token = options.token;
  const ctx: ResponseContext = { clock: o.clock, validate: o.validate, redact: createRedactor(token), bodies: new BodyMemo() };
  // A call's `validate` picks one of three contexts made once (the hot path allocates none).
  const ctxOff: ResponseContext = { ...ctx, validate: false, mode: 'off' };
  const ctxSample: ResponseContext = { ...ctx, mode: 'sample', sampler: new BodySampler() };
  const ctxOf = (opts: CallOptions | undefined): ResponseContext => {
    const mode = opts?.validate;
    return mode === undefined || mode === 'full' ? ctx : mode === 'off' ? ctxOff : ctxSample;
  };
  const auth = `Bearer ${token}`;
  const getHeaders = freezeHeaders({ ...o.headers, authorization: auth, accept: JSON_TYPE, 'user-agent': USER_AGENT });
  const postHeaders = freezeHeaders({ ...getHeaders, 'content-type': JSON_TYPE });
  const streamHeaders = freezeHeaders({ ...postHeaders, accept: 'text/event-stream' });
  const triggerHeaders = freezeHeaders(
    o.triggerAuth ? { ...postHeaders } : { accept: JSON_TYPE, 'content-type': JSON_TYPE, 'user-agent': USER_AGENT },
  );

  const apiTransport = createTransport(o.origin, o);
  let hookTransport: Transport | undefined = o.webhookOrigin === o.origin ? apiTransport : undefined;
  const hookTransportFor = (): Transport => (hookTransport ??= createTransport(o.webhookOrigin, o));
  // Origins of `http` requests other than these two, each its own pool.
  const otherTransports = new Map<string, Transport>();

  const base = o.basePath;
  const get = <T>(op: OpName, path: string, schema: z.ZodType, opts: CallOptions | undefined): Promise<ApiResult<T>> =>
    requestJson<T>(ctxOf(opts), op, apiTransport, 'GET', path, undefined, withCallHeaders(getHeaders, opts?.headers), schema, undefined, opts?.signal, opts?.deadlineMs);

  const client: Client = {
    baseUrl: o.baseUrl,
    webhookHost: o.webhookHost,
    redact: ctx.redact,

    run(flowId, body, opts) {
      const path = `${base}/flows/${encodeURIComponent(flowId)}/run`;
      const headers = withCallHeaders(postHeaders, opts?.headers);
      return requestJson(ctxOf(opts), 'run', apiTransport, 'POST', path, JSON.stringify(body), headers, runSchema, runCompletionViolations, opts?.signal, opts?.deadlineMs);
    },

    stream(flowId, body, opts?: StreamCallOptions) {
      const path = `${base}/flows/${encodeURIComponent(flowId)}/stream`;
      const headers = withCallHeaders(streamHeaders, opts?.headers);
      return runStream(ctxOf(opts), apiTransport, path, JSON.stringify(body), headers, opts?.signal, opts?.onEvent, opts?.deadlineMs);
    },

    streamEvents(flowId, body, opts) {
      const path = `${base}/flows/${encodeURIComponent(flowId)}/stream`;
      const headers = withCallHeaders(streamHeaders, opts?.headers);
      const json = JSON.stringify(body);
      return streamEvents((signal, sink) => runStream(ctxOf(opts), apiTransport, path, json, headers, signal, sink, opts?.deadlineMs), opts?.signal);
    },

    getRun(runId, opts) {
      return get('getRun', `${base}/runs/${encodeURIComponent(runId)}`, runStatusBodySchema, opts);
    },

    listFlows(query, opts) {
      const q = query === undefined ? '' : queryString({ limit: query.limit, offset: query.offset, status: query.status });
      return get('listFlows', `${base}/flows${q}`, flowListSchema, opts);
    },

    listAllFlows(query, opts) {
      return allPages(client, query ?? {}, opts);
    },

    getFlow(flowId, opts) {
      return get('getFlow', `${base}/flows/${encodeURIComponent(flowId)}`, flowSchema, opts);
    },

    createSession(body, opts) {
      const headers = withCallHeaders(postHeaders, opts?.headers);
      return requestJson(ctxOf(opts), 'createSession', apiTransport, 'POST', `${base}/sessions`, JSON.stringify(body), headers, sessionSchema, undefined, opts?.signal, opts?.deadlineMs);
    },

    getHistory(sessionId, opts) {
      return get('getHistory', `${base}/sessions/${encodeURIComponent(sessionId)}/history`, historySchema, opts);
    },

    getUsage(query, opts) {
      const q =
        query === undefined
          ? ''
          : queryString({ start_date: query.start_date, end_date: query.end_date, flow_id: query.flow_id, granularity: query.granularity });
      return get('getUsage', `${base}/analytics/usage${q}`, usageStatsSchema, opts);
    },

    trigger(flowId, payload, opts) {
      const path = `${o.webhookPath}/api/v1/webhook/${encodeURIComponent(flowId)}`;
      const headers = withCallHeaders(triggerHeaders, opts?.headers);
      return requestJson(ctxOf(opts), 'trigger', hookTransportFor(), 'POST', path, JSON.stringify(payload), headers, triggerAckSchema, undefined, opts?.signal, opts?.deadlineMs);
    },

    http(req, opts) {
      const { origin, path } = httpTarget(req, o.baseUrl);
      const method = httpMethod(req);
      const own = origin === o.origin;
      let transport: Transport;
      if (own) transport = apiTransport;
      else if (origin === o.webhookOrigin) transport = hookTransportFor();
      else {
        let t = otherTransports.get(origin);
        if (t === undefined) {
          if (otherTransports.size >= MAX_OTHER_ORIGINS) throw new InvalidArgumentError(`http: at most ${MAX_OTHER_ORIGINS} other origins per client`);
          otherTransports.set(origin, (t = createTransport(origin, o)));
        }
        transport = t;
      }
      const json = req.body !== undefined && typeof req.body !== 'string';
      const body = req.body === undefined ? undefined : json ? JSON.stringify(req.body) : (req.body as string);
      const base: Record<string, string> = { ...o.headers, accept: '*/*', 'user-agent': USER_AGENT, ...(json ? { 'content-type': JSON_TYPE } : {}) };
      // The token goes where it was given for, or where the journey says it may.
      if (req.auth ?? own) base.authorization = auth;
      const headers = withCallHeaders(withCallHeaders(base, req.headers), opts?.headers);
      return requestHttp(ctx, `http:${opts?.name ?? 'request'}`, transport, method, path, body, headers, opts?.signal, opts?.deadlineMs);
    },

    async close() {
      const transports = hookTransport !== undefined && hookTransport !== apiTransport ? [apiTransport, hookTransport] : [apiTransport];
      // Every pool is closed before the first await: a call right after close() is refused.
      transports.push(...otherTransports.values());
      // close() is safe to repeat on both transports; a second caller waits for the same drain.
      await Promise.all(transports.map((t) => t.close()));
    },
  };

  // Only the addresses are shown; the token stays in this closure.
  const shown = (): { baseUrl: string; webhookHost: string } => ({ baseUrl: o.baseUrl, webhookHost: o.webhookHost });
  Object.defineProperty(client, inspect.custom, {
    value: (_depth: number, opts: object, show: typeof inspect) => `Client ${show(shown(), opts)}`,
  });
  Object.defineProperty(client, 'toJSON', { value: shown });
  const { clock: _clock, ...spec } = options;
  specs.set(client, { ...spec, connections: o.connections });
  return Object.freeze(client);
}

async function* allPages(client: Client, query: ListAllFlowsQuery, opts: CallOptions | undefined): AsyncGenerator<ApiResult<FlowList>> {
  const pageSize = query.pageSize ?? MAX_PAGE_SIZE;
  if (!Number.isInteger(pageSize) || pageSize < 1) throw new InvalidArgumentError('listAllFlows: pageSize must be a positive integer');
  let offset = 0;
  for (;;) {
    const page = await client.listFlows({ limit: pageSize, offset, status: query.status }, opts);
    yield page;
    if (!page.ok) return;
    const flows = page.value.flows;
    const n = Array.isArray(flows) ? flows.length : 0;
    // An empty page ends the walk even if `total` says otherwise, so a lying total cannot loop forever.
    if (n === 0) return;
    offset += n;
    const total = page.value.total;
    if (Number.isInteger(total) ? offset >= total : n < pageSize) return;
  }
}
