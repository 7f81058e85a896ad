/**
 * Thresholds are checked before the run, through `main`: exit 2 before any request reaches the
 * target, naming what the mix sends, the key to write for k6's form, and the nearest key for a typo.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { startReferenceService, type ReferenceService } from '../../src/target/index.js';

let dir: string;
let service: ReferenceService;
const TOKEN = 'fg_threshold_checks_token';
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fg-cli-thresholds-'));
  service = await startReferenceService({ latency: 'none', tokens: { [TOKEN]: { account: 'acct_t', tier: 'pro' } } });
});
afterAll(async () => {
  await service.close();
  rmSync(dir, { recursive: true, force: true });
});

async function runWith(thresholds: Record<string, string>): Promise<{ code: number; err: string }> {
  const file = join(dir, 's.json');
  writeFileSync(file, JSON.stringify({ name: 's', tier: 'pro', load: { executor: 'constant-arrival-rate', rate: '5/s', duration: '1s' }, mix: [{ op: 'listFlows' }], thresholds }));
  const io = memoryIo({ cwd: dir });
  const code = await main(['run', file, '--base-url', service.baseUrl, '--token', TOKEN, '--out', join(dir, 'out'), '--quiet', '--no-audit'], io);
  return { code, err: io.err() };
}

describe('thresholds checked before the first request', () => {
  it('an absent operation, k6 form and typos are exit 2 with the fix, and the target saw nothing', async () => {
    const before = service.stats().requests;
    expect(await runWith({ 'run.latency.p99': '<1s' })).toMatchObject({ code: 2, err: expect.stringMatching(/the mix sends listFlows/) });
    expect(await runWith({ 'listFlows.latency.p99': 'p(95)<500' })).toMatchObject({ code: 2, err: expect.stringContaining('"listFlows.latency.p95": "<500"') });
    expect(await runWith({ 'listflows.latency.p99': '<1s' })).toMatchObject({ code: 2, err: expect.stringContaining('did you mean "listFlows.latency.p99"?') });
    expect(await runWith({ 'listFlows.latncy.p99': '<1s' })).toMatchObject({ code: 2, err: expect.stringContaining('did you mean "listFlows.latency.p99"?') });
    expect(await runWith({ availabilty: '>=99%' })).toMatchObject({ code: 2, err: expect.stringContaining('did you mean "availability"?') });
    expect((await runWith({ 'listFlows.latency.p42': '<1s' })).err).not.toContain('did you mean');
    expect(service.stats().requests).toBe(before);
  });
});

describe("thresholds on a journey's own requests (vu.http rows)", () => {
  it('http:<name>.latency.<stat>, .count, .errors and .errors.rate judge the row report.json has under ops["http:<name>"]', async () => {
    const { readFileSync } = await import('node:fs');
    const file = join(dir, 'raw.ts');
    writeFileSync(
      file,
      "import { defineScenario } from 'flowgauge';\n" +
        "export default defineScenario({ name: 'raw', tier: 'pro', load: { rate: '5/s', duration: '1s' },\n" +
        "  journey: async (vu) => { await vu.http({ name: 'raw', path: '/flows' }); await vu.http({ name: 'auth.missing', path: '/no-such-page' }); },\n" +
        "  thresholds: { 'http:raw.latency.p95': '<5s', 'http:raw.count': '>=1', 'http:raw.errors': '==0', 'http:auth.missing.errors.rate': '==100%', 'listFlows.count': '==0' } });\n",
    );
    const io = memoryIo({ cwd: dir });
    const code = await main(['run', file, '--base-url', service.baseUrl, '--token', TOKEN, '--out', join(dir, 'raw-out'), '--quiet', '--no-audit'], io);
    expect(code, io.err()).toBe(0);
    const report = JSON.parse(readFileSync(join(dir, 'raw-out', 'report.json'), 'utf8')) as { ops: Record<string, { count: number; latencyMs: { p95: number } }>; thresholds: { metric: string; observed: number | null; passed: boolean }[] };
    const raw = report.ops['http:raw'];
    expect(raw?.count).toBe(5);
    expect(report.thresholds).toEqual([
      { metric: 'http:raw.latency.p95', op: '<', value: 5000, observed: raw?.latencyMs.p95, passed: true },
      { metric: 'http:raw.count', op: '>=', value: 1, observed: 5, passed: true },
      { metric: 'http:raw.errors', op: '==', value: 0, observed: 0, passed: true },
      { metric: 'http:auth.missing.errors.rate', op: '==', value: 1, observed: 1, passed: true },
      { metric: 'listFlows.count', op: '==', value: 0, observed: 0, passed: true },
    ]);
  });

  it('a mistyped http: key is named as one, with the key to write, never as a scope', async () => {
    const file = join(dir, 'raw-typo.ts');
    writeFileSync(
      file,
      "import { defineScenario } from 'flowgauge';\n" +
        "export default defineScenario({ name: 'raw-typo', tier: 'pro', load: { rate: '5/s', duration: '1s' },\n" +
        "  journey: async (vu) => { await vu.http({ name: 'raw', path: '/flows' }); },\n" +
        "  thresholds: { 'http:raw.latncy.p95': '<5s', 'raw.latency.p99': '<5s' } });\n",
    );
    const io = memoryIo({ cwd: dir });
    expect(await main(['run', file, '--base-url', service.baseUrl, '--token', TOKEN, '--quiet', '--no-audit'], io)).toBe(2);
    expect(io.err()).toContain('(2 problems)');
    expect(io.err()).toContain('did you mean "http:raw.latency.p95"?');
    expect(io.err()).toContain('did you mean "http:raw.latency.p99"?');
    expect(io.err()).not.toContain('scopes a threshold');
  });
});
