/** `flowgauge run --webhook-listen` through `main`: the embedded service is pointed at the receiver. */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import type { Report } from '../../src/report/index.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'fg-notify-cli-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function scenarioFile(): string {
  const path = join(dir, 'notify.json');
  writeFileSync(
    path,
    JSON.stringify({
      name: 'notify-cli',
      tier: 'pro',
      load: { executor: 'constant-arrival-rate', rate: '20/s', duration: '500ms' },
      mix: [{ op: 'run', weight: 1 }, { op: 'trigger', weight: 1 }],
    }),
  );
  return path;
}

describe('flowgauge run --webhook-listen', () => {
  it('receives the embedded service notifications, matches them and audits usage exactly', async () => {
    const io = memoryIo({ cwd: dir });
    const out = join(dir, 'out');
    const code = await main(['run', scenarioFile(), '--webhook-listen', '127.0.0.1:0', '--notification-grace', '2s', '--out', out, '--quiet'], io);
    expect(io.err()).toBe('');
    expect(code).toBe(0);
    expect(io.out()).toContain('receiving notifications at http://127.0.0.1:');
    const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as Report;
    const runs = report.ops.run?.count ?? 0;
    expect(report.notifications).toMatchObject({ eventSet: 'flow.run', expected: runs, matched: runs, missing: 0 });
    expect(report.notifications?.triggers.unresolved).toBe(0);
    expect(report.audit?.usage?.exact).toBe(true);
    expect(readFileSync(join(out, 'report.md'), 'utf8')).toContain('## Notifications');
  });

  it('refuses a bad address, a real target without a secret, and a bad poll interval (exit 2)', async () => {
    const file = scenarioFile();
    const a = memoryIo({ cwd: dir });
    expect(await main(['run', file, '--webhook-listen', 'here', '--quiet'], a)).toBe(2);
    expect(a.err()).toContain('--webhook-listen');
    const b = memoryIo({ cwd: dir });
    expect(await main(['run', file, '--base-url', 'http://127.0.0.1:9/v1', '--token', 't', '--webhook-listen', '127.0.0.1:0', '--quiet'], b)).toBe(2);
    expect(b.err()).toContain('--webhook-secret');
    const c = memoryIo({ cwd: dir });
    expect(await main(['run', file, '--poll-interval', '1ms', '--quiet'], c)).toBe(2);
    expect(c.err()).toContain('--poll-interval');
  });
});
