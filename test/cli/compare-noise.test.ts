/**
 * `flowgauge compare` knows noise, through the CLI: two real 3-request runs, then the same run
 * with its p99 raised 6.8 % (what was once flagged a regression), and runs at different rates.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import type { Report } from '../../src/report/model.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'fg-cli-compare-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function cli(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const io = memoryIo({ cwd: dir });
  const code = await main(argv, io);
  return { code, out: io.out(), err: io.err() };
}

/** A run of exactly 3 requests against the embedded service; returns its report.json path. */
async function threeRequests(name: string): Promise<string> {
  const scenario = join(dir, `${name}.json`);
  writeFileSync(scenario, JSON.stringify({ name: 'three', tier: 'pro', load: { executor: 'constant-arrival-rate', rate: '10/s', duration: '300ms' }, mix: [{ op: 'listFlows', weight: 1 }] }));
  const r = await cli(['run', scenario, '--out', join(dir, name), '--quiet', '--no-audit']);
  expect(r.code, r.err).toBe(0);
  const path = join(dir, name, 'report.json');
  expect((JSON.parse(readFileSync(path, 'utf8')) as Report).ops.listFlows?.count).toBe(3);
  return path;
}

function edited(path: string, name: string, edit: (r: Report) => Report): string {
  const out = join(dir, `${name}.json`);
  writeFileSync(out, JSON.stringify(edit(JSON.parse(readFileSync(path, 'utf8')) as Report)));
  return out;
}

describe('flowgauge compare', () => {
  it('two 3-request runs: a worse p99 is inconclusive, not a regression, and every figure shows its samples', async () => {
    const a = await threeRequests('a');
    const b = await threeRequests('b');
    const slower = edited(b, 'b-slower', (r) => {
      const l = r.ops.listFlows!;
      return { ...r, ops: { ...r.ops, listFlows: { ...l, latencyMs: { ...l.latencyMs, p99: l.latencyMs.p99 * 1.068 + 0.01 } } } };
    });
    const r = await cli(['compare', b, slower, '--max-regression', 'listFlows.latency.p99=1%']);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/listFlows\.latency\.p99 .*\s3\/3\s+listFlows\.latency\.p99=1%\s+inconclusive: too few samples: 3 and 3, a p99 needs 500/);
    expect(r.out).toMatch(/no regressions \(1 rule checked\); 1 inconclusive \(the samples cannot tell the change from noise\): listFlows\.latency\.p99=1%/);
    expect(r.out).not.toMatch(/REGRESSION/);
    // The two real runs, either way round: whichever is slower is inconclusive, never a regression.
    const ab = await cli(['compare', a, b, '--max-regression', 'listFlows.latency.p99=1%,listFlows.latency.p50=1%']);
    const ba = await cli(['compare', b, a, '--max-regression', 'listFlows.latency.p99=1%,listFlows.latency.p50=1%']);
    expect([ab.code, ba.code]).toEqual([0, 0]);
    expect(`${ab.out}${ba.out}`).toMatch(/inconclusive: too few samples: 3 and 3/);
  });

  it('runs at different rates are not comparable: exit 2, no rule judged', async () => {
    const a = await threeRequests('c');
    const faster = edited(a, 'c-rate', (r) => ({ ...r, load: { ...r.load, targetRatePerS: 20 } }));
    const r = await cli(['compare', a, faster, '--max-regression', 'listFlows.latency.p99=1%']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/are not comparable: the target rates differ: baseline 10\/s, current 20\/s/);
    expect(r.out).toMatch(/NOT COMPARABLE: the target rates differ/);
    const other = edited(a, 'c-name', (r) => ({ ...r, scenario: 'another' }));
    expect((await cli(['compare', a, other])).code).toBe(2);
  });
});
