/**
 * A probe history far larger than the heap is read in bounded memory by both of its readers:
 * `slo status` and a restarted `probe`. Each runs as a real CLI process whose V8 heap is capped
 * at 64 MB, over a 128 MB day file of 450,000 records. Holding them, as the readers once did,
 * aborts with a heap out-of-memory error (already at 96 MB: parsed, a record takes about 225
 * bytes, and the old status built points of each on top); folding them as they stream
 * succeeds. docs/reliability.md quotes the 1 GB figures of `bench/probe-history.ts`.
 * The restarted probe also pushes its counters, continued from the whole history (folded, in
 * the same bound), to a Pushgateway stand-in.
 */
import { copyFileSync, existsSync, mkdirSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOTALS_CHECKPOINT, type SloStatus } from '../../src/probe/index.js';
import { SETTLE_MS } from '../../src/probe/totals.js';
import { PROBE_METRICS } from '../../src/slo/metric-names.js';
import { parseExposition, valueOf } from '../export/helpers/exposition.js';
import { killIfRunning, spawnCli, type CliProcess } from '../reliability/cli-process.js';
import { watchPeakRss } from '../reliability/peak-rss.js';
import { writeBigHistory, type BigHistory } from './big-history.js';
import { removeTempDirs, tempDir } from './helpers.js';

const HEAP_MB = 64;
const FILE_MB = 128;
const SPACING_MS = 100;
const TAIL = 5;

let cwd: string;
let history: BigHistory;
let lastRoundMs: number;
const children: CliProcess[] = [];
let gateway: Server;
let gatewayUrl = '';
const pushed: string[] = [];

beforeAll(async () => {
  cwd = tempDir();
  mkdirSync(join(cwd, 'status'));
  mkdirSync(join(cwd, 'probe'));
  // Ends a minute ago, so a restarted probe finds its last round within the hour it trusts.
  lastRoundMs = Date.now() - 60_000;
  history = await writeBigHistory(join(cwd, 'status'), { bytes: FILE_MB * 2 ** 20, endMs: lastRoundMs, spacingMs: SPACING_MS, failingTail: TAIL });
  // The probe appends to its copy while `slo status` reads the original.
  for (const f of history.files) copyFileSync(join(cwd, 'status', f), join(cwd, 'probe', f));
  gateway = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      pushed.push(body);
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => gateway.listen(0, '127.0.0.1', () => r()));
  gatewayUrl = `http://127.0.0.1:${(gateway.address() as AddressInfo).port}`;
}, 60_000);

afterAll(async () => {
  for (const c of children) await killIfRunning(c);
  await new Promise<void>((r) => gateway.close(() => r()));
  removeTempDirs();
});

/** Runs the CLI with its heap capped; resolves with its output, exit code and peak RSS. */
async function capped(args: string[]): Promise<{ code: number | null; out: string; err: string; peakMb: number | undefined }> {
  const p = spawnCli(args, { cwd, nodeArgs: [`--max-old-space-size=${HEAP_MB}`] });
  children.push(p);
  const rss = watchPeakRss(p.child.pid as number);
  const { code } = await p.exited;
  rss.stop();
  return { code, out: p.stdout(), err: p.stderr(), peakMb: rss.peakMb() };
}

describe(`a ${FILE_MB} MB probe history under a ${HEAP_MB} MB heap`, () => {
  it('is larger than the heap by far', () => {
    const bytes = history.files.reduce((n, f) => n + statSync(join(cwd, 'status', f)).size, 0);
    expect(bytes).toBeGreaterThan(1.9 * HEAP_MB * 2 ** 20);
    expect(history.records).toBeGreaterThan(400_000);
  });

  it('slo status and a restarted probe both read it whole, in bounded memory', async () => {
    const at = new Date(lastRoundMs + 1000).toISOString();
    const [status, probe] = await Promise.all([
      capped(['slo', 'status', '--history', 'status', '--window', '1d', '--at', at, '--json']),
      capped(['probe', '--once', '--history', 'probe', '--checks', 'listFlows', '--quiet', '--pushgateway', gatewayUrl]),
    ]);

    expect(status.err).toBe('');
    expect(status.code).toBe(0);
    const s = JSON.parse(status.out) as SloStatus;
    expect(s.history).toEqual({ files: history.files.length, tornTails: 0, badLines: 0, records: history.records });
    expect(s.overall.probes).toBe(history.rounds);
    const listFlows = s.checks.find((c) => c.name === 'listFlows');
    expect(listFlows?.incidents.at(-1)).toMatchObject({ open: true, failures: TAIL });
    expect(s.checks.find((c) => c.name === 'stream')?.incidents.length).toBeGreaterThan(0);

    // The restart saw the schedule and the outage its history ended in, and closed it.
    expect(probe.err).toBe('');
    expect(probe.code).toBe(0);
    expect(probe.out).toMatch(/each record stands for \d+\.\ds, the time since the previous one/);
    expect(probe.out).toMatch(/incident closed on listFlows after \d+\.\d\d min/);
    expect(probe.out).toMatch(/incident closed on overall after/);

    // Its push counts every record of the history and its own round (which succeeded).
    expect(pushed).toHaveLength(1);
    const series = parseExposition(pushed[0] as string);
    const P = PROBE_METRICS;
    expect(valueOf(series, P.total.name, { check: 'listFlows', result: 'success' })).toBe(history.rounds - TAIL + 1);
    expect(valueOf(series, P.total.name, { check: 'listFlows', result: 'failure' })).toBe(TAIL);
    expect(valueOf(series, P.total.name, { check: 'stream', result: 'success' }) + valueOf(series, P.total.name, { check: 'stream', result: 'failure' })).toBe(history.rounds);
    expect(valueOf(series, `${P.duration.name}_count`, { check: 'run', phase: 'total' })).toBe(history.rounds);
    // The checkpoint exists only once a day of the history has settled (ended SETTLE_MS ago); a
    // history of today alone, or of today and a yesterday that ended under an hour ago, leaves none.
    const settled = history.files.some((f) => {
      const day = /(\d{4}-\d{2}-\d{2})/.exec(f)?.[1];
      return day !== undefined && Date.parse(`${day}T00:00:00Z`) + 86_400_000 + SETTLE_MS <= Date.now();
    });
    if (settled) expect(existsSync(join(cwd, 'probe', TOTALS_CHECKPOINT))).toBe(true);

    // The heap cap is the real bound; RSS adds code, the loader thread and young space.
    for (const r of [status, probe]) if (r.peakMb !== undefined) expect(r.peakMb).toBeLessThan(300);
  }, 120_000);
});
