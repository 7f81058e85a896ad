/** `--workers N|auto`: how many threads generate the load. */
import { availableParallelism } from 'node:os';
import { UsageError } from './context.js';

/**
 * Flags that need the whole run in one thread; refused beside `--workers` above 1. A
 * notification is matched to the completion the client saw, and with workers each completion
 * is in one of N threads while the receiver is one port.
 */
export const SINGLE_THREAD_FLAGS = ['webhook-listen'] as const;

/**
 * Resolves `--workers`: a whole number from 1 to the machine's cores, or `auto` (one thread per
 * core but one, which is left to the main thread and, against the embedded service, to it).
 */
export function parseWorkers(value: string | undefined, cores: number = availableParallelism()): number {
  if (value === undefined) return 1;
  if (value === 'auto') return Math.max(1, cores - 1);
  const n = /^\d+$/.test(value.trim()) ? Number(value) : Number.NaN;
  if (!Number.isInteger(n) || n < 1 || n > cores) {
    throw new UsageError(`--workers "${value}" is not allowed: give a whole number from 1 to ${cores} (this machine's cores), or auto (${Math.max(1, cores - 1)} here)`);
  }
  return n;
}

/**
 * What `--workers auto` chose, said once on stderr: above all when it chose 1 (a machine of two
 * cores or fewer), so a run meant to use every core does not silently use one. Undefined otherwise.
 */
export function autoWorkersNote(value: string | undefined, workers: number, cores: number = availableParallelism()): string | undefined {
  if (value !== 'auto') return undefined;
  const kept = cores > 1 ? 'one kept for the main thread and the target' : 'none to spare';
  const more = workers === 1 ? '; the run is in one thread: give --workers 2 to split it anyway, or run shards on more machines' : '';
  return `--workers auto: ${workers} worker${workers === 1 ? '' : 's'} (${cores} core${cores === 1 ? '' : 's'}, ${kept})${more}`;
}

/** Throws when a flag that needs one thread is given beside more than one worker. */
export function checkWorkerFlags(workers: number, args: Readonly<Record<string, unknown>>): void {
  if (workers <= 1) return;
  const given = SINGLE_THREAD_FLAGS.filter((f) => args[f] !== undefined);
  if (given.length > 0) {
    throw new UsageError(
      `--workers ${workers} cannot be combined with ${given.map((f) => `--${f}`).join(', ')} yet (each notification must meet the completion it reports, which one of the workers saw): run with --workers 1, or split the run over processes with --shard i/N and merge the reports`,
    );
  }
}
