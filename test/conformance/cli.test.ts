/**
 * `flowgauge conformance` in-process: files written, exit codes 0 / 1 / 3, secrets never
 * printed. The command is mounted on its own parser (the CLI registers it in commands/index.ts).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import yargs from 'yargs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { conformanceCommand } from '../../src/cli/commands/conformance.js';
import type { ExitCode } from '../../src/cli/exit-codes.js';
import { memoryIo } from '../../src/cli/io.js';
import type { ConformanceReport } from '../../src/conformance/index.js';
import { startReferenceService, type ReferenceService } from '../../src/target/index.js';

const TOKEN = 'fg_conformance_cli_token_secret';
let dir: string;
let broken: ReferenceService;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fg-conformance-'));
  broken = await startReferenceService({ latency: 'none', rateLimit: { headers: false }, tokens: { [TOKEN]: { account: 'acct_b', tier: 'pro' } } });
});
afterAll(async () => {
  await broken.close();
  rmSync(dir, { recursive: true, force: true });
});

async function conformance(argv: string[], env: Record<string, string> = {}) {
  const io = memoryIo({ cwd: dir, env });
  let exit: ExitCode = 0;
  const ctx = { io, setExit: (c: ExitCode) => void (exit = Math.max(exit, c) as ExitCode) };
  await yargs(argv).command(conformanceCommand(ctx)).strict().exitProcess(false).fail((msg, err) => {
    throw err ?? new Error(msg);
  }).parseAsync();
  return { io, exit: exit as number };
}

describe('flowgauge conformance', () => {
  it('checks the embedded service: exit 0, conformance.json and .md written, event names observed', async () => {
    const out = join(dir, 'embedded');
    const { io, exit } = await conformance(['conformance', '--out', out]);
    // Progress only: one line per probe group, in order, from the reachability check to the rate limits.
    const lines = io.err().trimEnd().split('\n');
    expect(lines.every((l) => /^flowgauge: conformance \d+\/12 [a-z ]+ \(\d+ requests, \d+\.\d s\)$/.test(l)), io.err()).toBe(true);
    expect(lines.map((l) => /\d+\/12 ([a-z ]+) \(/.exec(l)?.[1])).toEqual(['reachability', 'auth', 'lists', 'flows', 'runs', 'streams', 'run errors', 'sessions', 'usage', 'trigger', 'notifications', 'rate limits']);
    expect(exit).toBe(0);
    expect(io.out()).toContain('no violations');
    const report = JSON.parse(readFileSync(join(out, 'conformance.json'), 'utf8')) as ConformanceReport;
    expect(report.schema).toBe('flowgauge/conformance@1');
    expect(report.target.embedded).toBe(true);
    expect(report.observations.find((o) => o.id === 'notifications.eventNames')?.value).toMatchObject({ set: 'flow.run' });
    expect(report.observations.find((o) => o.id === 'auth.otherAccount')?.status).toBe('observed');
    expect(readFileSync(join(out, 'conformance.md'), 'utf8')).toContain('## Observations');
  });

  it('exits 1 with the violations of a target that drops the rate-limit headers, never printing the token', async () => {
    const out = join(dir, 'broken');
    const { io, exit } = await conformance(['conformance', '--base-url', broken.baseUrl, '--out', out, '--json'], { FLOWGAUGE_TOKEN: TOKEN });
    expect(exit).toBe(1);
    const printed = JSON.parse(io.out()) as ConformanceReport;
    expect(printed.violations.map((v) => v.path)).toContain('x-ratelimit-reset');
    expect(io.err()).toContain('violations of the interface');
    for (const text of [io.out(), io.err(), readFileSync(join(out, 'conformance.json'), 'utf8'), readFileSync(join(out, 'conformance.md'), 'utf8')]) {
      expect(text).not.toContain(TOKEN);
    }
  });

  it('exits 3 when the target cannot be reached', async () => {
    const { exit, io } = await conformance(['conformance', '--base-url', 'http://127.0.0.1:9/v1', '--token', TOKEN, '--out', join(dir, 'down')]);
    expect(exit).toBe(3);
    expect(io.out()).toContain('could not be reached');
  });
});
