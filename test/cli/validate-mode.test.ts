/** `flowgauge run` of a scenario that checks a share of its bodies names the mode on the console, at the start and in the summary. */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import type { Report } from '../../src/report/index.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'fg-cli-validate-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('flowgauge run with validate: sample', () => {
  it('says so when it starts and in the summary, and the report records it', async () => {
    const path = join(dir, 'sampled.json');
    writeFileSync(path, JSON.stringify({ name: 'sampled', tier: 'pro', load: { rate: '20/s', duration: '500ms' }, mix: [{ op: 'listFlows' }], validate: 'sample' }));
    const io = memoryIo({ cwd: dir });
    const out = join(dir, 'out');
    const code = await main(['run', path, '--out', out, '--quiet'], io);
    const text = io.out() + io.err();
    expect(text).toContain('validate: sample (one 2xx body in 16 checked)');
    expect(text).toMatch(/WARNING VALIDATE_SAMPLE: validate: sample: one 2xx body in 16/);
    const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as Report;
    expect(report.warnings?.map((w) => w.code)).toContain('VALIDATE_SAMPLE');
    expect(code).toBe(0);
  });
});
