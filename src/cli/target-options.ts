/**
 * The flags that name a target, shared by every command that sends traffic, and the choice
 * between a real deployment and the embedded reference service.
 */
import { resolve } from 'node:path';
import type { Options } from 'yargs';
import { ConfigError, FlowgaugeError } from '../core/errors.js';
import { EMBEDDED_TARGET_NAME, isTargetName, TARGET_NAME_HELP, targetNameOf } from '../core/target-name.js';
import { readInputFile } from '../scenario/index.js';
import type { ReferenceServiceOptions, ReferenceServiceThread } from '../target/index.js';
import { caBundleProblem } from './ca-bundle.js';
import { UsageError } from './context.js';
import type { CliIo } from './io.js';

/** yargs definitions of the target flags. */
export const TARGET_OPTIONS = {
  'base-url': {
    type: 'string',
    describe: 'API address of the service, ending in /v1 (or set FLOWGAUGE_BASE_URL; the flag wins); omit both to use the embedded reference service',
  },
  token: {
    type: 'string',
    // One value always: '-' (stdin) is a value here, not a positional argument.
    requiresArg: true,
    describe: "API token; '-' reads it from stdin. A value given here is visible to local users in `ps` while the process starts: prefer --token-file, FLOWGAUGE_TOKEN or --token -. Never printed or stored",
  },
  'token-file': { type: 'string', requiresArg: true, describe: 'read the API token from this file (one line, e.g. a mounted secret); never printed or stored' },
  'webhook-host': { type: 'string', describe: 'address of the inbound trigger host (default: the origin of --base-url)' },
  ca: { type: 'string', requiresArg: true, describe: 'PEM file of extra trusted CA certificates for an https target (a private CA)' },
  insecure: { type: 'boolean', describe: 'do not verify the https target\'s certificate (said in the output; never for a release gate)' },
  header: { type: 'string', array: true, requiresArg: true, describe: "'Name: value' sent with every request, e.g. a gateway key (repeatable; values never printed)" },
} as const satisfies Record<string, Options>;

/** yargs definition of `--target-name` (the commands that label what they export with it). */
export const TARGET_NAME_OPTION = {
  'target-name': {
    type: 'string',
    requiresArg: true,
    describe: `the target's name on every metric it exports (and in probe records and Pushgateway groups): default the --base-url host, ${EMBEDDED_TARGET_NAME} for the embedded service`,
  },
} as const satisfies Record<string, Options>;

/** Checks a `--target-name` before anything starts; a bad one is a usage error saying what is allowed. */
export function checkTargetName(given: string | undefined): void {
  if (given !== undefined && !isTargetName(given)) throw new UsageError(`--target-name "${given}" is not ${TARGET_NAME_HELP}`);
}

/**
 * The target's name: `--target-name`, else the base URL's host, else (the embedded service)
 * `reference-service`. A host that is no name (rare: an odd IPv6 form) asks for the flag.
 */
export function targetNameFor(given: string | undefined, target: { readonly baseUrl: string; readonly embedded: boolean }): string {
  checkTargetName(given);
  const name = given ?? (target.embedded ? EMBEDDED_TARGET_NAME : targetNameOf(target.baseUrl));
  if (name === undefined) throw new UsageError(`the host of ${target.baseUrl} is not ${TARGET_NAME_HELP}: name the target with --target-name`);
  return name;
}

/** Parsed target flags. */
export interface TargetArgs {
  readonly 'base-url'?: string | undefined;
  readonly token?: string | undefined;
  readonly 'token-file'?: string | undefined;
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

/** Longest `--ca` bundle read: a few hundred certificates. */
const MAX_CA_BYTES = 1024 * 1024;

/**
 * Reads the `--ca` bundle as every input file is read (a regular file, bounded; a FIFO or a
 * device refused instead of waited on); a bad one is a usage error naming it.
 */
export async function readCaFile(path: string, cwd: string): Promise<string> {
  let text: string;
  try {
    text = await readInputFile(resolve(cwd, path), { what: 'CA bundle', maxBytes: MAX_CA_BYTES, shownAs: path });
  } catch (err) {
    if (err instanceof ConfigError) throw new UsageError(`--ca ${path}: ${err.issues.map((i) => i.message).join('; ')}`);
    if (err instanceof FlowgaugeError && err.code === 'FG_FILE_NOT_FOUND') throw new UsageError(`--ca ${path}: cannot read it (ENOENT)`);
    throw new UsageError(`--ca ${path}: cannot read it (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  const problem = caBundleProblem(text);
  if (problem !== undefined) throw new UsageError(`--ca ${path}: ${problem}`);
  return text;
}

/** Reads `--ca`, `--insecure` and `--header`; a bad one is a usage error naming it (never a header's value). */
async function clientOptionsOf(args: TargetArgs, cwd: string): Promise<TargetClientOptions> {
  const out: { tls?: { ca?: string; insecure?: boolean }; headers?: Record<string, string> } = {};
  if (args.ca !== undefined) out.tls = { ca: await readCaFile(args.ca, cwd) };
  if (args.insecure === true) out.tls = { ...out.tls, insecure: true };
  for (const h of args.header ?? []) {
    const colon = h.indexOf(':');
    const name = colon > 0 ? h.slice(0, colon).trim() : '';
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) throw new UsageError(`--header must be 'Name: value', e.g. --header 'X-Api-Key: …'; got a header without a valid name`);
    (out.headers ??= {})[name] = h.slice(colon + 1).trim();
  }
  return out;
}

/** Longest token read from a file or stdin: tokens are short; a big file is the wrong file. */
export const MAX_TOKEN_BYTES = 16 * 1024;

/** One token from a file's or stdin's text: the line without its line ending; else a usage error naming `from`. */
function oneToken(text: string, from: string): string {
  const token = text.replace(/^\uFEFF/, '').replace(/\r?\n$/, '').trim();
  if (token === '') throw new UsageError(`${from} holds no token: write the token on one line`);
  // Never quote the text: it is a secret, or a file that holds one.
  if (/[\r\n]/.test(token)) throw new UsageError(`${from} holds more than one line; write the token alone on one line`);
  return token;
}

/** Reads stdin to its end, at most MAX_TOKEN_BYTES. */
async function readStdinToken(io: CliIo): Promise<string> {
  if (io.stdin === undefined) throw new UsageError('--token - reads the token from stdin, but this process has no stdin');
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of io.stdin) {
    const b = typeof c === 'string' ? Buffer.from(c) : c;
    size += b.length;
    if (size > MAX_TOKEN_BYTES) throw new UsageError(`--token -: stdin holds more than ${MAX_TOKEN_BYTES} bytes; a token is one short line`);
    chunks.push(b);
  }
  return oneToken(Buffer.concat(chunks).toString('utf8'), '--token - (stdin)');
}

/**
 * The token the flags name: `--token-file PATH` (a regular file, read once; a FIFO, device or
 * directory refused), `--token -` (stdin), `--token VALUE`, else `FLOWGAUGE_TOKEN`. Exported
 * for commands that need the token before `resolveTarget`.
 */
export async function tokenOf(args: TargetArgs, io: CliIo): Promise<string | undefined> {
  const file = args['token-file'];
  if (file !== undefined) {
    if (args.token !== undefined) throw new UsageError('give the token one way: --token or --token-file, not both');
    let text: string;
    try {
      text = await readInputFile(resolve(io.cwd, file), { what: 'token file', maxBytes: MAX_TOKEN_BYTES, shownAs: file });
    } catch (err) {
      if (err instanceof ConfigError) throw new UsageError(`--token-file ${file}: ${err.issues.map((i) => i.message).join('; ')}`);
      if (err instanceof FlowgaugeError && err.code === 'FG_FILE_NOT_FOUND') throw new UsageError(`--token-file ${file}: no such file`);
      throw err;
    }
    return oneToken(text, `--token-file ${file}`);
  }
  if (args.token === '-') return readStdinToken(io);
  return args.token ?? io.env.FLOWGAUGE_TOKEN;
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
  /** The embedded service, when one was started (in its own thread). */
  readonly service: ReferenceServiceThread | undefined;
  close(): Promise<void>;
}

/**
 * Resolves the target flags. Without `--base-url` starts the embedded service and uses its
 * token for `tier`; with it, requires a token. The embedded service runs in a thread of its
 * own: the generator's lag under load (EVENT_LOOP_LAG) is then not the service's too, and its
 * timings are its own.
 */
export async function resolveTarget(
  args: TargetArgs,
  io: CliIo,
  tier: 'free' | 'pro' | 'enterprise',
  serviceOptions: ReferenceServiceOptions = {},
): Promise<ResolvedTarget> {
  args = withEnvBaseUrl(args, io.env);
  const token = args['base-url'] === undefined ? undefined : await tokenOf(args, io);
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
      throw new UsageError('a real target needs a token: set FLOWGAUGE_TOKEN, or pass --token-file PATH or --token - (stdin)');
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
      client: { ...(await clientOptionsOf(args, io.cwd)), ...optional('proxy', proxyOf(io, baseUrl)) },
      service: undefined,
      close: async () => {},
    };
  }
  if (args.token !== undefined || args['token-file'] !== undefined) {
    io.stderr.write(`flowgauge: ${args.token !== undefined ? '--token' : '--token-file'} is ignored without --base-url or FLOWGAUGE_BASE_URL (the embedded service has its own)\n`);
  }
  // The embedded service's code is loaded only when it is the target (no --base-url).
  const { startReferenceServiceThread } = await import('../target/service-thread.js');
  const service = await startReferenceServiceThread(serviceOptions);
  return {
    baseUrl: service.baseUrl,
    webhookHost: service.webhookHost,
    token: service.tokens[tier],
    embedded: true,
    client: await clientOptionsOf(args, io.cwd),
    service,
    close: () => service.close(),
  };
}
