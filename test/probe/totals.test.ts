/**
 * The probe's cumulative counts read back from the history: equal to counting every record,
 * never lower after retention deletes a day (a checkpoint keeps the settled days' counts), and
 * read without folding the settled days again.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { historyFileName, pruneHistory, readProbeTotals, SETTLE_MS, TOTALS_CHECKPOINT, utcDay, type ProbeRecord } from '../../src/probe/index.js';
import { removeTempDirs, rounds, tempDir } from './helpers.js';

afterEach(() => removeTempDirs());

const DAY_MS = 86_400_000;
/** Noon, three days after the history starts: days 0 and 1 are settled, day 2 is not (yet). */
const START = Date.parse('2026-03-01T00:00:00Z');
const NOW = START + 2 * DAY_MS + 12 * 3_600_000;

/** Writes records to their day files (as the writer does). */
function writeHistory(dir: string, records: readonly ProbeRecord[]): void {
  mkdirSync(dir, { recursive: true });
  const byDay = new Map<string, string>();
  for (const r of records) {
    const day = utcDay(Date.parse(r.time));
    byDay.set(day, `${byDay.get(day) ?? ''}${JSON.stringify(r)}\n`);
  }
  for (const [day, text] of byDay) writeFileSync(join(dir, historyFileName(day)), text, { flag: 'a' });
}

/** One round an hour for 60 hours; `run` fails every fifth round. */
function history(): ProbeRecord[] {
  return rounds(START, 60, ['listFlows', 'run'], (i, c) => c === 'run' && i % 5 === 0, 3_600_000).map((r) => ({ ...r, checkMs: 12.5 }));
}

describe('readProbeTotals', () => {
  it('counts every record of the history by check and result, with the duration histogram', async () => {
    const dir = tempDir();
    const recs = history();
    writeHistory(dir, recs);
    const { totals, folded } = await readProbeTotals(dir, NOW);
    expect(folded).toBe(recs.length);
    expect(totals.checks.listFlows).toMatchObject({ success: 60, failure: 0 });
    expect(totals.checks.run).toMatchObject({ success: 48, failure: 12 });
    expect(totals.checks.run?.phases.total?.count).toBe(60);
    expect(totals.checks.run?.phases.check?.count).toBe(60);
    expect(totals.checks.run?.phases.check?.sum).toBeCloseTo(60 * 0.0125, 9);
  });

  it('keeps the settled days in a checkpoint, so retention deleting a day never lowers the totals', async () => {
    const dir = tempDir();
    writeHistory(dir, history());
    const first = await readProbeTotals(dir, NOW);
    expect(first.through).toBe(utcDay(START + DAY_MS));
    expect(existsSync(join(dir, TOTALS_CHECKPOINT))).toBe(true);

    // Retention removes the first two days; the totals stay, and only day 2 is folded.
    expect(await pruneHistory(dir, DAY_MS / 2, NOW)).toEqual([historyFileName(utcDay(START)), historyFileName(utcDay(START + DAY_MS))]);
    const second = await readProbeTotals(dir, NOW);
    expect(second.totals).toEqual(first.totals);
    expect(second.folded).toBe(12 * 2);

    // New records on top: counted once.
    writeHistory(dir, rounds(NOW, 1, ['run'], () => true));
    const third = await readProbeTotals(dir, NOW + 60_000);
    expect(third.totals.checks.run).toMatchObject({ success: 48, failure: 13 });
  });

  it('leaves a day out of the checkpoint until it has been over for an hour (late records still land in it)', async () => {
    const dir = tempDir();
    writeHistory(dir, history());
    const early = await readProbeTotals(dir, START + 2 * DAY_MS + SETTLE_MS / 2);
    expect(early.through).toBe(utcDay(START));
    const later = await readProbeTotals(dir, START + 2 * DAY_MS + SETTLE_MS + 1);
    expect(later.through).toBe(utcDay(START + DAY_MS));
    expect(later.totals).toEqual(early.totals);
  });

  it('refolds the day files when the checkpoint is torn or was made with other buckets', async () => {
    const dir = tempDir();
    const recs = history();
    writeHistory(dir, recs);
    const good = await readProbeTotals(dir, NOW);
    const path = join(dir, TOTALS_CHECKPOINT);
    writeFileSync(path, readFileSync(path, 'utf8').slice(0, 40));
    const torn = await readProbeTotals(dir, NOW);
    expect(torn.folded).toBe(recs.length);
    expect(torn.totals).toEqual(good.totals);
    const cp = JSON.parse(readFileSync(path, 'utf8')) as { v: number; targets: Record<string, { bounds: number[] }> };
    expect(cp.v).toBe(2);
    (cp.targets[''] as { bounds: number[] }).bounds = [1, 2, 3];
    writeFileSync(path, JSON.stringify(cp));
    expect((await readProbeTotals(dir, NOW)).folded).toBe(recs.length);
  });

  it('keeps the targets of one history apart: a prober counts its own records and those that name no target', async () => {
    const dir = tempDir();
    const old = history().filter((r) => Date.parse(r.time) < START + DAY_MS);
    const later = history().filter((r) => Date.parse(r.time) >= START + DAY_MS);
    // Day 0 before targets were kept; then two probers, one per target, append to one directory.
    writeHistory(dir, [...old, ...later.map((r) => ({ ...r, target: 'staging' })), ...later.map((r) => ({ ...r, target: 'prod', success: true }))]);
    const staging = await readProbeTotals(dir, NOW, 'staging');
    const prod = await readProbeTotals(dir, NOW, 'prod');
    const runsOf = (recs: readonly ProbeRecord[]) => ({ success: recs.filter((r) => r.check === 'run' && r.success).length, failure: recs.filter((r) => r.check === 'run' && !r.success).length });
    expect(staging.totals.checks.run).toMatchObject(runsOf([...old, ...later]));
    expect(prod.totals.checks.run).toMatchObject(runsOf([...old, ...later.map((r) => ({ ...r, success: true }))]));
    // Read again from the checkpoint (days 0 and 1 settled), the same.
    expect(prod.through).toBe(utcDay(START + DAY_MS));
    expect((await readProbeTotals(dir, NOW, 'prod')).totals).toEqual(prod.totals);
    expect((await readProbeTotals(dir, NOW, 'staging')).totals).toEqual(staging.totals);
  });

  it('reads a checkpoint of version 1 (before targets) as the records that name no target', async () => {
    const dir = tempDir();
    writeHistory(dir, history());
    const before = await readProbeTotals(dir, NOW);
    const path = join(dir, TOTALS_CHECKPOINT);
    const cp = JSON.parse(readFileSync(path, 'utf8')) as { through: string; targets: Record<string, unknown> };
    writeFileSync(path, JSON.stringify({ v: 1, through: cp.through, totals: cp.targets[''] }));
    const after = await readProbeTotals(dir, NOW, 'api.example.com');
    expect(after.folded).toBe(12 * 2);
    expect(after.totals).toEqual(before.totals);
  });

  it('knows when each check last ran and last succeeded', async () => {
    const dir = tempDir();
    const recs = history();
    writeHistory(dir, recs);
    const { totals } = await readProbeTotals(dir, NOW);
    // The end of the check, in whole ms (the live probe's duration and the record's agree there).
    const finishedS = (r: ProbeRecord): number => Math.round(Date.parse(r.time) + (r.checkMs ?? 0)) / 1000;
    const runs = recs.filter((r) => r.check === 'run');
    expect(totals.checks.run?.lastRunS).toBeCloseTo(finishedS(runs.at(-1) as ProbeRecord), 6);
    expect(totals.checks.run?.lastSuccessS).toBeCloseTo(finishedS(runs.filter((r) => r.success).at(-1) as ProbeRecord), 6);
  });

  it('reads a history it cannot write to, saying why the checkpoint was not kept', async () => {
    const dir = tempDir();
    writeHistory(dir, history());
    // A directory in the checkpoint's place makes the rename fail, as a read-only volume would.
    mkdirSync(join(dir, TOTALS_CHECKPOINT));
    const r = await readProbeTotals(dir, NOW);
    expect(r.checkpointError).toBeDefined();
    expect(r.totals.checks.run).toMatchObject({ success: 48, failure: 12 });
    rmSync(join(dir, TOTALS_CHECKPOINT), { recursive: true });
  });
});
