/**
 * The flags that name a target, shared by every command that sends traffic, and the choice
 * between a real deployment and the embedded reference service.
 */
import { readFile } from 'node:fs/promises';
import type { Options } from 'yargs';
import { startReferenceService, type ReferenceService } from '../target/index.js';
import { UsageError } from './context.js';
import type { CliIo } from './io.js';

/** yargs definitions of the target flags. */
export const TARGET_OPTIONS = {
  'base-url': {
    type: 'string',
    describe: 'API address of the service, ending in /v1 (or set FLOWGAUGE_BASE_URL; the flag wins); omit both to use the embedded reference service',
  },
  token: { type: 'string', describe: 'API token (or set FLOWGAUGE_TOKEN); never printed or stored' },
  'webhook-host': { type: 'string', describe: 'address of the inbound trigger host (default: the origin of --base-url)' },
  ca: { type: 'string', requiresArg: true, describe: 'PEM file of extra trusted CA certificates for an https target (a private CA)' },
  insecure: { type: 'boolean', describe: 'do not verify the https target\'s certificate (said in the output; never for a release gate)' },
  header: { type: 'string', array: true, requiresArg: true, describe: "'Name: value' sent with every request, e.g. a gateway key (repeatable; values never printed)" },
} as const satisfies Record<string, Options>;

/** Parsed target flags. */
export interface TargetArgs {
  readonly 'base-url'?: string | undefined;
  readonly token?: string | undefined;
  readonly 'webhook-host'?: string | undefined;
  readonly ca?: string | undefined;
  readonly insecure?: boolean | undefined;
  readonly header?: readonly string[] | undefined;
}

/** Args whose `base-url` came from `FLOWGAUGE_BASE_URL`, so messages name the variable. */
const FROM_ENV = new WeakSet<object>();

/**
 * `FLOWGAUGE_BASE_URL` as the default of `--base-url` (the flag wins; an empty value is unset).
 * Every command that takes the target flags applies it first, so all its checks see one address.
 */
export function withEnvBaseUrl<T extends TargetArgs>(args: T, env: Readonly<Record<string, string | undefined>>): T {
  const fromEnv = env.FLOWGAUGE_BASE_URL;
  if (args['base-url'] !== undefined || fromEnv === undefined || fromEnv.trim() === '') return args;
  const out = { ...args, 'base-url': fromEnv.trim() };
  FROM_ENV.add(out);
  return out;
}

/** What the target flags and the environment add to a client's options (TLS trust, extra headers, a proxy). */
export interface TargetClientOptions {
  readonly tls?: { readonly ca?: string; readonly insecure?: boolean };
  readonly headers?: Readonly<Record<string, string>>;
  /** From `HTTPS_PROXY`/`NO_PROXY` (lower-case names first, as curl reads them), for an https target. */
  readonly proxy?: { readonly url: string; readonly noProxy: string };
}

/** A proxy address as it may be printed: no credentials. */
function shownProxy(url: URL): string {
  return `${url.protocol}//${url.host}`;
}

/**
 * `HTTPS_PROXY` and `NO_PROXY` for an https target (an http target is always reached directly).
 * A malformed proxy address is a usage error that does not quote it (it may carry credentials).
 */
function proxyOf(io: CliIo, baseUrl: string): TargetClientOptions['proxy'] {
  if (!baseUrl.startsWith('https:')) return undefined;
  const raw = io.env.https_proxy ?? io.env.HTTPS_PROXY;
  if (raw === undefined || raw === '') return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError('HTTPS_PROXY is not a URL; give the proxy as http://host:port');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`HTTPS_PROXY must be an http:// or https:// address, got ${url.protocol}`);
  const noProxy = io.env.no_proxy ?? io.env.NO_PROXY ?? '';
  io.stderr.write(`flowgauge: https requests go through the proxy ${shownProxy(url)} (HTTPS_PROXY)${noProxy === '' ? '' : ' except for the hosts NO_PROXY names'}\n`);
  return { url: url.href, noProxy };
}

const optional = <K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } => (value === undefined ? {} : ({ [key]: value } as { [P in K]?: V }));

/** Reads `--ca`, `--insecure` and `--header`; a bad one is a usage error naming it (never a header's value). */
async function clientOptionsOf(args: TargetArgs): Promise<TargetClientOptions> {
  const out: { tls?: { ca?: string; insecure?: boolean }; headers?: Record<string, string> } = {};
  if (args.ca !== undefined) {
    try {
      out.tls = { ca: await readFile(args.ca, 'utf8') };
    } catch (err) {
      throw new UsageError(`--ca ${args.ca}: cannot read it (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
    }
  }
  if (args.insecure === true) out.tls = { ...out.tls, insecure: true };
  for (const h of args.header ?? []) {
    const colon = h.indexOf(':');
    const name = colon > 0 ? h.slice(0, colon).trim() : '';
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) throw new UsageError(`--header must be 'Name: value', e.g. --header 'X-Api-Key: …'; got a header without a valid name`);
    (out.headers ??= {})[name] = h.slice(colon + 1).trim();
  }
  return out;
}

/**
 * The API address with its version segment: `https://api.example.com` means
 * `https://api.example.com/v1`, the interface's base. Trailing slashes are dropped; a query is
 * kept off (a base URL has none).
 */
export function withVersion(url: URL): string {
  const path = url.pathname.replace(/\/+$/, '');
  return /\/v\d+$/.test(path) ? `${url.origin}${path}` : `${url.origin}${path}/v1`;
}

/** A resolved target: where to send traffic, with which token, and how to let it go. */
export interface ResolvedTarget {
  readonly baseUrl: string;
  readonly webhookHost: string | undefined;
  readonly token: string;
  readonly embedded: boolean;
  /** TLS trust and extra headers from the flags, for every client of the target. */
  readonly client: TargetClientOptions;
  /** The embedded service, when one was started. */
  readonly service: ReferenceService | undefined;
  close(): Promise<void>;
}

/**
 * Resolves the target flags. Without `--base-url` starts the embedded service and uses its
 * token for `tier`; with it, requires a token.
 */
export async function resolveTarget(
  args: TargetArgs,
  io: CliIo,
  tier: 'free' | 'pro' | 'enterprise',
  serviceOptions: Parameters<typeof startReferenceService>[0] = {},
): Promise<ResolvedTarget> {
  args = withEnvBaseUrl(args, io.env);
  const token = args.token ?? io.env.FLOWGAUGE_TOKEN;
  if (args['base-url'] !== undefined) {
    const name = FROM_ENV.has(args) ? 'FLOWGAUGE_BASE_URL' : '--base-url';
    let url: URL;
    try {
      url = new URL(args['base-url']);
    } catch {
      throw new UsageError(`${name} "${args['base-url']}" is not a URL; give the API address, e.g. https://api.example.com/v1`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new UsageError(`${name} must be an http:// or https:// address, got ${url.protocol}`);
    }
    if (url.username !== '' || url.password !== '') {
      throw new UsageError(`${name} must not carry credentials (user:password@); pass the API token with --token or FLOWGAUGE_TOKEN`);
    }
    if (token === undefined || token === '') {
      throw new UsageError('a real target needs a token: pass --token or set FLOWGAUGE_TOKEN');
    }
    const baseUrl = withVersion(url);
    if (baseUrl !== args['base-url'].replace(/\/+$/, '')) {
      io.stderr.write(`flowgauge: ${name} ${url.origin}${url.pathname} has no version segment; using ${baseUrl} (the interface's paths live under /v1)\n`);
    }
    return {
      baseUrl,
      webhookHost: args['webhook-host'],
      token,
      embedded: false,
      client: { ...(await clientOptionsOf(args)), ...optional('proxy', proxyOf(io, baseUrl)) },
      service: undefined,
      close: async () => {},
    };
  }
  if (args.token !== undefined) io.stderr.write('flowgauge: --token is ignored without --base-url or FLOWGAUGE_BASE_URL (the embedded service has its own)\n');
  const service = await startReferenceService(serviceOptions);
  return {
    baseUrl: service.baseUrl,
    webhookHost: service.webhookHost,
    token: service.tokens[tier],
    embedded: true,
    client: await clientOptionsOf(args),
    service,
    close: () => service.close(),
  };
}
