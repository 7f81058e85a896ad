/**
 * The history is folded, not collected: the reorder buffer restores time order holding at most
 * its capacity, the status folded from disk is the status built from the same records in an
 * array, a restart resumes from the tail of each series, lines too long to be records are
 * skipped unread, and the array reader keeps only the latest records.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  buildSloStatus,
  createReorderBuffer,
  createSeriesStream,
  createSloStatusFold,
  DEFAULT_REORDER_CAPACITY,
  foldHistory,
  MAX_HISTORY_LINE,
  MAX_LISTED_INCIDENTS,
  readHistory,
  readProbeResume,
  type CheckName,
  type ProbeRecord,
} from '../../src/probe/index.js';
import { record, removeTempDirs, tempDir } from './helpers.js';

afterEach(() => removeTempDirs());

const T0 = Date.UTC(2026, 4, 10);
const MIN = 60_000;
const CHECKS: readonly CheckName[] = ['listFlows', 'run', 'stream'];

/** `n` rounds a minute apart from two probes on one directory, appended out of time order. */
function messyHistory(n: number, down: (round: number, check: CheckName) => boolean): ProbeRecord[] {
  const out: ProbeRecord[] = [];
  for (let i = 0; i < n; i++) {
    for (const instance of ['a', 'b']) {
      // Probe b runs 20 s behind a; its rounds finish later, and now and then the clock steps back.
      const base = T0 + i * MIN + (instance === 'b' ? 20_000 : 0) - (i % 17 === 0 ? 45_000 : 0);
      const round = CHECKS.map((check, k) => record({ timeMs: base + k * 7, check, instance, round: i, success: !down(i, check), intervalMs: MIN }));
      // A round is appended when its slowest check ends: in reverse check order here.
      out.push(...round.reverse());
    }
  }
  return out;
}

function writeDay(dir: string, day: string, recs: readonly ProbeRecord[]): void {
  writeFileSync(join(dir, `probe-${day}.jsonl`), recs.map((r) => `${JSON.stringify(r)}\n`).join(''));
}

describe('reorder buffer', () => {
  it('emits in time order (ties in input order) while nothing comes later than its capacity, holding at most that', () => {
    const out: [string, number][] = [];
    const buf = createReorderBuffer<string>((s, at) => void out.push([s, at]), 4);
    const input: [string, number][] = [['a', 5], ['b', 3], ['c', 5], ['d', 1], ['e', 6], ['f', 4], ['g', 9], ['h', 8]];
    for (const [s, at] of input) buf.push(s, at);
    buf.flush();
    expect(out.map(([s]) => s).join('')).toBe('dbfaceh' + 'g');
    expect(buf.peak).toBe(4);
    expect(buf.late).toBe(0);
  });

  it('counts what comes later than the buffer can hold, and still emits it', () => {
    const out: number[] = [];
    const buf = createReorderBuffer<number>((n) => void out.push(n), 2);
    for (const n of [10, 11, 12, 13, 1]) buf.push(n, n);
    buf.flush();
    expect(out.sort((a, b) => a - b)).toEqual([1, 10, 11, 12, 13]);
    expect(buf.late).toBe(1);
  });

  it('a series stream over 200,000 records never holds more than the capacity', () => {
    let points = 0;
    const stream = createSeriesStream(() => void points++);
    const recs = messyHistory(2, () => false);
    const copies = Math.ceil(200_000 / recs.length);
    for (let i = 0; i < copies; i++) for (const r of recs) stream.add({ ...r, round: r.round + 2 * i }, Date.parse(r.time) + 2 * i * MIN);
    stream.end();
    expect(stream.peakHeld).toBe(DEFAULT_REORDER_CAPACITY);
    expect(stream.late).toBe(0);
    // One point per record, and one per round of each instance.
    const total = copies * recs.length;
    expect(points).toBe(total + total / CHECKS.length);
  });
});

describe('folding a history', () => {
  it('gives the status the array reader gives, records on disk out of order', async () => {
    const dir = tempDir();
    const recs = messyHistory(600, (i, c) => (c === 'stream' && i % 100 < 5) || (c === 'run' && i > 590));
    const split = recs.findIndex((r) => Date.parse(r.time) >= T0 + 300 * MIN);
    writeDay(dir, '2026-05-10', recs);
    // The same records spread over two day files must not matter either.
    const dir2 = tempDir();
    writeDay(dir2, '2026-05-10', recs.slice(0, split));
    writeDay(dir2, '2026-05-11', recs.slice(split));
    const options = { nowMs: T0 + 601 * MIN, windowMs: 6 * 3_600_000, failuresToOpen: 3 };

    const expected = buildSloStatus(recs, options);
    for (const d of [dir, dir2]) {
      const fold = createSloStatusFold(options);
      const scan = await foldHistory(d, {}, (r, t) => fold.add(r, t));
      expect(scan.inRange).toBe(recs.length);
      expect(fold.finish()).toEqual(expected);
    }
    expect(expected.checks.map((c) => c.name)).toEqual(['listFlows', 'run', 'stream']);
    expect(expected.checks.find((c) => c.name === 'stream')?.incidents.length).toBeGreaterThan(2);
  });

  it('a restart resumes each series from its trailing failures, and the latest record of each check', async () => {
    const dir = tempDir();
    const recs = messyHistory(50, (i, c) => c === 'run' && i >= 46);
    writeDay(dir, '2026-05-10', recs);
    const now = T0 + 60 * MIN;
    const resume = await readProbeResume(dir, {}, now);
    // Rounds 46–49 of both probes: 8 failures, from the first one of probe a.
    expect(resume.tails.get('run')).toEqual({ startMs: T0 + 46 * MIN + 7, failures: 8 });
    expect(resume.tails.get('overall')).toEqual({ startMs: T0 + 46 * MIN, failures: 8 });
    expect(resume.tails.has('listFlows')).toBe(false);
    expect(resume.latest.map((r) => [r.check, r.instance, r.round]).sort()).toEqual([
      ['listFlows', 'b', 49],
      ['run', 'b', 49],
      ['stream', 'b', 49],
    ]);
  });

  it('lists the latest incidents of a flapping series and counts the rest', () => {
    // 3 failures then a success, over and over: an incident every 4 rounds.
    const n = 4 * (MAX_LISTED_INCIDENTS + 200);
    const fold = createSloStatusFold({ nowMs: T0 + n * MIN, windowMs: n * MIN, failuresToOpen: 3 });
    for (let i = 0; i < n; i++) fold.add(record({ timeMs: T0 + i * MIN, round: i, success: i % 4 === 3 }));
    const s = fold.finish();
    const c = s.checks[0];
    expect(c?.incidents).toHaveLength(MAX_LISTED_INCIDENTS);
    expect(c?.incidentsOmitted).toBe(200);
    expect(c?.incidents.at(-1)?.end).toBe(new Date(T0 + (n - 1) * MIN).toISOString());
    expect(s.warnings.some((w) => w.includes('200 older incidents'))).toBe(true);
  });
});

describe('reading lines', () => {
  it(`skips a line longer than ${MAX_HISTORY_LINE / 1024} kB unread as bad, and a long torn tail as torn`, async () => {
    const dir = tempDir();
    const a = JSON.stringify(record({ timeMs: T0, round: 1 }));
    const b = JSON.stringify(record({ timeMs: T0 + MIN, round: 2 }));
    const huge = 'x'.repeat(3 * 1024 * 1024);
    writeFileSync(join(dir, 'probe-2026-05-10.jsonl'), `${a}\n${huge}\n${b}\r\n${huge}`);
    const seen: number[] = [];
    const scan = await foldHistory(dir, {}, (r) => void seen.push(r.round));
    expect(seen).toEqual([1, 2]);
    expect(scan).toMatchObject({ badLines: 1, tornTails: 1, inRange: 2 });
  });

  it('readHistory keeps only the latest records, in time order, and counts the rest', async () => {
    const dir = tempDir();
    // Even rounds were stamped 90 s late (a clock step): the append order is not the time order.
    const recs = Array.from({ length: 50 }, (_, i) => record({ timeMs: T0 + i * MIN + (i % 2 === 0 ? 90_000 : 0), round: i }));
    writeDay(dir, '2026-05-10', recs);
    const read = await readHistory(dir, {}, 10);
    expect(read.omitted).toBe(40);
    expect(read.records.map((r) => r.round)).toEqual([41, 40, 43, 42, 45, 44, 47, 46, 49, 48]);
    expect((await readHistory(dir, { fromMs: T0 + 45 * MIN })).records.map((r) => r.round)).toEqual([45, 44, 47, 46, 49, 48]);
  });
});
