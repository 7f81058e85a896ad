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
