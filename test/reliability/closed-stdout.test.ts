/**
 * `flowgauge run … | head -1`: the reader of stdout goes away while the CLI still has a summary to
 * print. The writes that follow fail with EPIPE; the run must go on, write its report and exit
 * with its verdict's code, not die of an unhandled stream error (whose exit code, 1, would pass
 * for a failed verdict).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import type { Report } from '../../src/report/index.js';
import { killIfRunning, spawnCli, type CliProcess } from './cli-process.js';

const dir = mkdtempSync(join(tmpdir(), 'fg-closed-stdout-'));
let cli: CliProcess | undefined;

afterAll(async () => {
  await killIfRunning(cli);
  rmSync(dir, { recursive: true, force: true });
});

it('a run whose stdout reader has gone still reports and exits with its verdict', async () => {
  writeFileSync(join(dir, 'list.json'), JSON.stringify({ name: 'piped', tier: 'pro', load: { rate: '20/s', duration: '1s' }, mix: [{ op: 'listFlows' }] }));
  cli = spawnCli(['run', 'list.json', '--out', 'out'], { cwd: dir });
  const stdout = cli.child.stdout;
  if (stdout === null) throw new Error('no stdout pipe');
  // Close the read end as soon as the first line arrives: everything after it meets a broken pipe.
  await new Promise<void>((resolve) => stdout.once('data', () => resolve()));
  stdout.destroy();
  const { code, signal } = await cli.exited;
  expect(cli.stderr()).not.toMatch(/EPIPE|Unhandled/);
  expect(signal).toBeNull();
  expect(code).toBe(0);
  const file = join(dir, 'out', 'report.json');
  expect(existsSync(file)).toBe(true);
  const report = JSON.parse(readFileSync(file, 'utf8')) as Report;
  expect(report.ops.listFlows?.count).toBe(20);
  expect(report.passed).toBe(true);
});
