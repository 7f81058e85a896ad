/**
 * Writes a large synthetic probe history (one day file, or several) by streaming, for the
 * bounded-memory tests and `bench/probe-history.ts`: rounds of the five checks, a short
 * outage of `stream` every `outageEvery` rounds, and optionally `listFlows` failing at the end
 * (an incident still open); never more than one chunk in memory.
 */
import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { once } from 'node:events';
import { CHECK_NAMES } from '../../src/probe/index.js';

/** Options of `writeBigHistory`. */
export interface BigHistoryOptions {
  /** Bytes to write, about (whole rounds of about 1.5 kB). */
  readonly bytes: number;
  /** Time of the first round (ms); or give `endMs`. */
  readonly startMs?: number;
  /** Time of the last round, about (the round count is estimated from the bytes). */
  readonly endMs?: number;
  /** Time between rounds, and the interval each record claims. */
  readonly spacingMs: number;
  /** Every this many rounds, `stream` fails 4 rounds in a row (an incident at 3). */
  readonly outageEvery?: number;
  /** The last this many rounds, `listFlows` fails. */
  readonly failingTail?: number;
}

/** What was written. */
export interface BigHistory {
  readonly bytes: number;
  readonly records: number;
  readonly rounds: number;
  /** Time of the last round. */
  readonly endMs: number;
  readonly files: readonly string[];
}

const DAY_MS = 86_400_000;
/** Bytes of a round of five records, near enough to place a history by its end. */
const ROUND_BYTES = 5 * 294;

/** Writes the history into `dir` (`probe-YYYY-MM-DD.jsonl` per UTC day). */
export async function writeBigHistory(dir: string, o: BigHistoryOptions): Promise<BigHistory> {
  const outageEvery = o.outageEvery ?? 10_000;
  const expectedRounds = Math.ceil(o.bytes / ROUND_BYTES);
  const tailFrom = expectedRounds - (o.failingTail ?? 0);
  let bytes = 0;
  let records = 0;
  let round = 0;
  let t = o.startMs ?? (o.endMs ?? Date.now()) - (expectedRounds - 1) * o.spacingMs;
  let day = -1;
  let out: ReturnType<typeof createWriteStream> | undefined;
  const files: string[] = [];
  let chunk = '';
  const flush = async (): Promise<void> => {
    if (chunk === '' || out === undefined) return;
    if (!out.write(chunk)) await once(out, 'drain');
    chunk = '';
  };
  const close = async (): Promise<void> => {
    await flush();
    if (out !== undefined) await new Promise<void>((resolve, reject) => (out as ReturnType<typeof createWriteStream>).end((err?: Error | null) => (err ? reject(err) : resolve())));
  };
  while (round < expectedRounds) {
    const d = Math.floor(t / DAY_MS);
    if (d !== day) {
      await close();
      day = d;
      const name = `probe-${new Date(d * DAY_MS).toISOString().slice(0, 10)}.jsonl`;
      files.push(name);
      out = createWriteStream(join(dir, name), { flags: 'a' });
    }
    const down = round % outageEvery < 4 && round >= outageEvery;
    const tail = o.failingTail !== undefined && round >= tailFrom;
    for (const check of CHECK_NAMES) {
      const ok = !(down && check === 'stream') && !(tail && check === 'listFlows');
      const ms = t + records % 7;
      const line =
        `{"v":1,"time":"${new Date(ms).toISOString()}","mono":${ms * 1e6},"instance":"bigh0001","round":${round},"check":"${check}",` +
        `"success":${ok},"status":${ok ? 200 : 503},"error":${ok ? 'null' : '"SERVICE_UNAVAILABLE"'},"intervalMs":${o.spacingMs},` +
        `"phasesMs":{"dns":null,"connect":0.21,"tls":null,"ttfb":${(1 + (records % 50) / 10).toFixed(1)},"transfer":0.1,"total":2.4},` +
        `"ttftMs":${check === 'stream' ? '41.2' : 'null'},"tls":null}\n`;
      chunk += line;
      bytes += line.length;
      records++;
    }
    if (chunk.length > 1 << 20) await flush();
    round++;
    t += o.spacingMs;
  }
  await close();
  return { bytes, records, rounds: round, endMs: t - o.spacingMs, files };
}
