/**
 * The flags that name a target, shared by every command that sends traffic, and the choice
 * between a real deployment and the embedded reference service.
 */
import type { Options } from 'yargs';
import { startReferenceService, type ReferenceService } from '../target/index.js';
import { UsageError } from './context.js';
import type { CliIo } from './io.js';

/** yargs definitions of the target flags. */
export const TARGET_OPTIONS = {
  'base-url': {
    type: 'string',
    describe: 'API address of the service, ending in /v1; omit to use the embedded reference service',
  },
  token: { type: 'string', describe: 'API token (or set FLOWGAUGE_TOKEN); never printed or stored' },
  'webhook-host': { type: 'string', describe: 'address of the inbound trigger host (default: the origin of --base-url)' },
} as const satisfies Record<string, Options>;

/** Parsed target flags. */
export interface TargetArgs {
  readonly 'base-url'?: string | undefined;
  readonly token?: string | undefined;
  readonly 'webhook-host'?: string | undefined;
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
  const token = args.token ?? io.env.FLOWGAUGE_TOKEN;
  if (args['base-url'] !== undefined) {
    let url: URL;
    try {
      url = new URL(args['base-url']);
    } catch {
      throw new UsageError(`--base-url "${args['base-url']}" is not a URL; give the API address, e.g. https://api.example.com/v1`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new UsageError(`--base-url must be an http:// or https:// address, got ${url.protocol}`);
    }
    if (url.username !== '' || url.password !== '') {
      throw new UsageError('--base-url must not carry credentials (user:password@); pass the API token with --token or FLOWGAUGE_TOKEN');
    }
    if (token === undefined || token === '') {
      throw new UsageError('a real target needs a token: pass --token or set FLOWGAUGE_TOKEN');
    }
    const baseUrl = withVersion(url);
    if (baseUrl !== args['base-url'].replace(/\/+$/, '')) {
      io.stderr.write(`flowgauge: --base-url ${url.origin}${url.pathname} has no version segment; using ${baseUrl} (the interface's paths live under /v1)\n`);
    }
    return {
      baseUrl,
      webhookHost: args['webhook-host'],
      token,
      embedded: false,
      service: undefined,
      close: async () => {},
    };
  }
  if (args.token !== undefined) io.stderr.write('flowgauge: --token is ignored without --base-url (the embedded service has its own)\n');
  const service = await startReferenceService(serviceOptions);
  return {
    baseUrl: service.baseUrl,
    webhookHost: service.webhookHost,
    token: service.tokens[tier],
    embedded: true,
    service,
    close: () => service.close(),
  };
}
