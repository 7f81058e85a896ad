/**
 * `--metrics-host`: where the live /metrics endpoint listens. Loopback by default, so a run on a
 * laptop exposes nothing; `0.0.0.0` (or `::`) for a pod whose Prometheus scrapes it from outside.
 */
import { isIP } from 'node:net';
import type { Options } from 'yargs';
import { UsageError } from './context.js';

/** yargs definition of the flag. */
export const METRICS_HOST_OPTION = {
  'metrics-host': {
    type: 'string',
    requiresArg: true,
    describe: 'interface the /metrics endpoint listens on (default 127.0.0.1; 0.0.0.0 in a pod, so Prometheus can scrape it)',
  },
} as const satisfies Record<string, Options>;

/** The host to bind, or a UsageError naming the flag as typed. */
export function metricsHost(value: string | undefined, port: number | undefined): string {
  if (value === undefined) return '127.0.0.1';
  if (port === undefined) throw new UsageError('--metrics-host needs --metrics-port: without a port nothing listens');
  if (value !== 'localhost' && isIP(value) === 0) throw new UsageError(`--metrics-host "${value}" is not an IP address; give e.g. 127.0.0.1, 0.0.0.0 or ::`);
  return value;
}
