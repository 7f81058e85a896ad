/**
 * TLS and proxy settings to an undici dispatcher, in one place: the client's undici transport
 * (`undici-transport.ts`) and the conformance battery build theirs here, so a private CA,
 * `--insecure` and an https proxy mean the same for both.
 *
 * undici itself is loaded when the first dispatcher is built (`undiciModule`, which the
 * Pushgateway pusher uses too): its entry (fetch, cookies, web streams, every dispatcher) costs
 * about 135 ms before a run's first request, and a run against an `http:` target never uses it
 * (`h1-pool.ts` carries those requests). Loaded on import, it also taxed every scenario module
 * that imports `flowgauge`.
 */
import { createRequire } from 'node:module';
import type * as Undici from 'undici';
import type { buildConnector, Dispatcher, Pool } from 'undici';

const require = createRequire(import.meta.url);
let undici: typeof Undici | undefined;

/** Trust of an `https:` origin: extra CA certificates (PEM), or no certificate check at all. */
export interface DispatcherTls {
  readonly ca?: string;
  readonly insecure?: boolean;
}

/** A `CONNECT` proxy for `https:` origins, and the hosts to reach directly (as curl reads `NO_PROXY`). */
export interface DispatcherProxy {
  readonly url: string;
  readonly noProxy?: string;
}

/** Options of `createUndiciDispatcher`. */
export interface DispatcherOptions {
  /** A `Pool` to this origin; without one, an `Agent` for any origin. */
  readonly origin?: string;
  readonly tls?: DispatcherTls | undefined;
  readonly proxy?: DispatcherProxy | undefined;
  /** TCP (and TLS) connect timeout. */
  readonly connectMs: number;
  /** Wraps the connector (the transport times each new connection with it). */
  readonly wrapConnector?: (connect: buildConnector.connector) => buildConnector.connector;
  /** The pool's own settings: connections, pipelining, undici's stall timeouts. */
  readonly pool?: Omit<Pool.Options, 'connect'>;
}

/** The TLS options undici takes for `tls`. */
export function tlsOptionsOf(tls: DispatcherTls | undefined): { ca?: string; rejectUnauthorized?: boolean } {
  return { ...(tls?.ca !== undefined ? { ca: tls.ca } : {}), ...(tls?.insecure === true ? { rejectUnauthorized: false } : {}) };
}

/** undici, loaded on first use. */
export function undiciModule(): typeof Undici {
  return (undici ??= require('undici') as typeof Undici);
}

/** A dispatcher: direct (a pool or an agent), or through the proxy, which tunnels to `https:` origins. */
export function createUndiciDispatcher(o: DispatcherOptions): Dispatcher {
  const { Agent, buildConnector, EnvHttpProxyAgent, Pool } = undiciModule();
  const tls = tlsOptionsOf(o.tls);
  const base = buildConnector({ timeout: o.connectMs, ...tls });
  const connect = o.wrapConnector?.(base) ?? base;
  const common = { ...o.pool, connect };
  if (o.proxy !== undefined) return new EnvHttpProxyAgent({ ...common, httpProxy: '', httpsProxy: o.proxy.url, noProxy: o.proxy.noProxy ?? '', requestTls: tls });
  return o.origin !== undefined ? new Pool(o.origin, common) : new Agent(common);
}
