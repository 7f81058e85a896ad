/**
 * A limiter that says `Remaining: 0` after 1 of an advertised 1,000 and then refuses: through
 * `main`, the run FAILs on the default thresholds with every refusal premature and the header
 * finding named, where it once passed with 139 of 140 "expected".
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import type { Report } from '../../src/report/model.js';
import { startReferenceService, type ReferenceService } from '../../src/target/index.js';

let dir: string;
let service: ReferenceService;
const TOKEN = 'fg_lying_limiter_token';
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fg-cli-lying-'));
  service = await startReferenceService({
    latency: 'none',
    tokens: { [TOKEN]: { account: 'acct_l', tier: { limitPerMinute: 1000 } } },
    // Admits one request a window, and its Remaining then says 0 of 1,000.
    faults: { throttleAfter: 1, remainingDrift: -998 },
  });
});
afterAll(async () => {
  await service.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('a limiter that lies about Remaining', () => {
  it('fails the default thresholds: its refusals are premature, and the lie is a header finding', async () => {
    const file = join(dir, 'liar.json');
    writeFileSync(file, JSON.stringify({ name: 'liar', tier: 'pro', load: { rate: '20/s', duration: '3s' }, mix: [{ op: 'listFlows', weight: 1 }] }));
    const io = memoryIo({ cwd: dir });
    const out = join(dir, 'liar');
    const code = await main(['run', file, '--base-url', service.baseUrl, '--token', TOKEN, '--out', out, '--quiet', '--no-audit'], io);
    const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as Report;
    expect(report.rateLimit.responses429).toBeGreaterThan(50);
    expect(report.rateLimit.premature429).toBe(report.rateLimit.responses429);
    expect(report.rateLimit.expected429).toBe(0);
    expect(report.rateLimit.headerViolations['remaining-below-count']).toBeGreaterThan(0);
    expect(io.out()).toMatch(/✗ ratelimit\.premature429/);
    expect(code).toBe(1);
  });
});
