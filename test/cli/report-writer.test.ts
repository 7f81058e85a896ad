/**
 * Where a run's report goes without `--out`: a directory of its own under `reports/`, even for
 * runs of one scenario started in the same second, which before shared one and replaced each
 * other's report (issue 41's left-out). With `--out`, the directory given.
 */
import { mkdtempSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { chooseReportDir } from '../../src/cli/report-files.js';
import { createReportWriter } from '../../src/cli/report-writer.js';
import type { Report } from '../../src/report/index.js';
import { fixtureReport } from '../report/fixture.js';

let cwd: string;
beforeEach(() => {
  cwd = mkdtempSync(join(tmpdir(), 'fg-report-writer-'));
});
afterEach(() => rmSync(cwd, { recursive: true, force: true }));

/** The fixture report with its own op count, so each directory's report can be told apart. */
function reportWith(count: number): Report {
  const r = fixtureReport();
  const startedAt = '2026-11-28T10:00:00.250Z';
  const ops = Object.fromEntries(Object.entries(r.ops).map(([k, v]) => [k, { ...v, count }]));
  return { ...r, startedAt, ops } as Report;
}

describe('the report writer', () => {
  it('gives runs of one scenario started in the same second a directory each, none replaced', async () => {
    const writers = [1, 2, 3].map(() => createReportWriter({ cwd, name: 'smoke', out: undefined }));
    await Promise.all(writers.map((w, i) => w.end!(reportWith(i + 1))));
    const dirs = writers.map((w) => w.dir);
    // Which writer gets which suffix is whoever claims first; that each gets its own is the point.
    expect(dirs.map((d) => basename(d ?? '')).sort()).toEqual(['smoke-20261128T100000Z', 'smoke-20261128T100000Z-2', 'smoke-20261128T100000Z-3']);
    dirs.forEach((d, i) => {
      const written = JSON.parse(readFileSync(join(d as string, 'report.json'), 'utf8')) as Report;
      for (const op of Object.values(written.ops)) expect(op.count).toBe(i + 1);
    });
    expect(writers.every((w) => w.failure === undefined)).toBe(true);
    expect(dirs).toContain(join(cwd, 'reports', readlinkSync(join(cwd, 'reports', 'latest'))));
  });

  it('keeps its directory from the schedule\'s report to the final one', async () => {
    const w = createReportWriter({ cwd, name: 'smoke', out: undefined });
    await w.scheduleEnded!(reportWith(1));
    const first = w.dir;
    await w.end!(reportWith(2));
    expect(w.dir).toBe(first);
    const written = JSON.parse(readFileSync(join(first as string, 'report.json'), 'utf8')) as Report;
    for (const op of Object.values(written.ops)) expect(op.count).toBe(2);
  });

  it('writes to --out as given, without a suffix, and leaves reports/latest alone', async () => {
    const w = createReportWriter({ cwd, name: 'smoke', out: 'mine' });
    await w.end!(reportWith(1));
    expect(w.dir).toBe(join(cwd, 'mine'));
    expect(w.latest).toBeUndefined();
  });
});

describe('the report directory of capacity and conformance', () => {
  it('is claimed as a run\'s is: two in the same second get one each; --out is taken as given', async () => {
    const at = Date.parse('2026-11-28T10:00:00.900Z');
    const dirs = await Promise.all([1, 2].map(() => chooseReportDir(cwd, 'capacity-listFlows', at, undefined)));
    expect(dirs.map((d) => basename(d)).sort()).toEqual(['capacity-listFlows-20261128T100000Z', 'capacity-listFlows-20261128T100000Z-2']);
    expect(await chooseReportDir(cwd, 'conformance', at, 'here')).toBe(join(cwd, 'here'));
  });
});
