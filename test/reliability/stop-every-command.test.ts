/**
 * Every ending writes what it has, for every long-running command beside `run` (whose stops are
 * `signals.test.ts`'s): the real CLI, stopped by a signal in the middle of its work.
 *
 * - `capacity` and `conformance`, by Ctrl-C (SIGINT) and by SIGHUP (an SSH session that
 *   dropped): capacity.json / conformance.json written with the steps / probes measured so far,
 *   marked interrupted, exit 128 + the signal (before: exit 130 by the signal, no file);
 * - `probe` as a daemon and `serve`, by SIGHUP: the round in flight finished and its records
 *   flushed, the service closed; a signal is their ordinary end, exit 0 (before: killed by it,
 *   exit 129, nothing flushed).
 *
 * Each signal is sent once the command has shown it is in the middle of its work (a step line,
 * a probe group's progress, a record in the history), never after a guessed time.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startReferenceService, type ReferenceService } from '../../src/target/index.js';
import { killIfRunning, spawnCli, until, type CliProcess } from './cli-process.js';

const TOKEN = 'fg_stop_every_command_t0k';
const CODE = { SIGINT: 130, SIGHUP: 129, SIGTERM: 143 } as const;

let dir: string;
let cli: CliProcess | undefined;
const services: ReferenceService[] = [];

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'fg-stop-every-'));
});
afterEach(async () => {
  await killIfRunning(cli);
  cli = undefined;
  for (const s of services.splice(0)) await s.close();
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

async function service(latencyMs = 0): Promise<ReferenceService> {
  const s = await startReferenceService({
    latency: 'none',
    tokens: { [TOKEN]: { account: 'acct_b', tier: { limitPerMinute: 10_000_000 } } },
    ...(latencyMs > 0 ? { faults: { latencyMs: { '*': latencyMs } } } : {}),
  });
  services.push(s);
  return s;
}

function start(args: readonly string[], svc: ReferenceService): CliProcess {
  cli = spawnCli([...args, '--base-url', svc.baseUrl, '--token', TOKEN], { cwd: dir });
  return cli;
}

describe('capacity, stopped mid-sweep', () => {
  for (const signal of ['SIGINT', 'SIGHUP'] as const) {
    it(`${signal}: capacity.json with the steps measured whole, marked interrupted; exit ${CODE[signal]}`, async () => {
      const svc = await service();
      const out = join(dir, `cap-${signal}`);
      const c = start(['capacity', 'listFlows', '--step', '2s', '--out', out], svc);
      // The first step is measured: the sweep is in its second (of a dozen, 256 being the maximum).
      await until(() => /concurrency 1: /.test(c.stdout()) || c.hasExited(), 'the first step', 90_000);
      expect(c.hasExited(), c.stderr()).toBe(false);
      c.child.kill(signal);
      const { code } = await c.exited;
      expect(code, c.stderr()).toBe(CODE[signal]);
      expect(c.stderr()).toContain(`${signal}: stopping`);
      const r = JSON.parse(readFileSync(join(out, 'capacity.json'), 'utf8')) as { interrupted?: boolean; stoppedBy: string; verdict: string; steps: { concurrency: number }[] };
      expect(r.interrupted).toBe(true);
      expect(r.stoppedBy).toBe('interrupted');
      expect(r.verdict).toMatch(/INTERRUPTED after \d+ whole steps?/);
      // Every step it printed as measured is in the file, and no other: the cut one is left out.
      const printed = [...c.stdout().matchAll(/concurrency (\d+): /g)].map((m) => Number(m[1]));
      expect(r.steps.map((s) => s.concurrency)).toEqual(printed);
      expect(r.steps.length).toBeGreaterThanOrEqual(1);
      expect(readFileSync(join(out, 'capacity.md'), 'utf8')).toMatch(/INTERRUPTED/);
      expect(readdirSync(out).filter((f) => f.includes('.tmp-'))).toEqual([]);
    }, 150_000);
  }
});

describe('conformance, stopped mid-battery', () => {
  for (const signal of ['SIGINT', 'SIGHUP'] as const) {
    it(`${signal}: conformance.json with what the battery saw and the groups it cut, marked interrupted; exit ${CODE[signal]}`, async () => {
      // Every answer takes 400 ms: the battery is well inside its groups when the signal comes.
      const svc = await service(400);
      const out = join(dir, `conf-${signal}`);
      const c = start(['conformance', '--out', out], svc);
      await until(() => /conformance 3\/12/.test(c.stderr()) || c.hasExited(), 'the third probe group', 90_000);
      expect(c.hasExited(), c.stderr()).toBe(false);
      c.child.kill(signal);
      const { code } = await c.exited;
      expect(code, c.stderr()).toBe(CODE[signal]);
      const r = JSON.parse(readFileSync(join(out, 'conformance.json'), 'utf8')) as {
        passed: boolean;
        requests: number;
        interrupted?: { cut: string[] };
        observations: unknown[];
        violations: unknown[];
      };
      expect(r.passed).toBe(false);
      expect(r.interrupted?.cut.length, JSON.stringify(r.interrupted)).toBeGreaterThan(0);
      // What it saw before the stop is kept: the reachability check and the groups before the third.
      expect(r.requests).toBeGreaterThanOrEqual(2);
      expect(r.observations.length).toBeGreaterThan(0);
      // The request the stop cancelled is not held against the target: the reference service breaks nothing.
      expect(r.violations).toEqual([]);
      expect(readFileSync(join(out, 'conformance.md'), 'utf8')).toContain('## ⏹️ INTERRUPTED');
      expect(c.stdout()).toMatch(/interrupted after \d+ requests; not tried: /);
    }, 150_000);
  }
});

describe('the daemons, stopped by SIGHUP', () => {
  it('probe (daemon): finishes its round, every record in the history whole, exit 0', async () => {
    const svc = await service();
    const history = join(dir, 'history');
    const c = start(['probe', '--interval', '1s', '--checks', 'listFlows,getFlow', '--history', history, '--quiet'], svc);
    const lines = (): string[] =>
      existsSync(history)
        ? readdirSync(history)
            .filter((f) => f.endsWith('.jsonl'))
            .flatMap((f) => readFileSync(join(history, f), 'utf8').split('\n').filter((l) => l !== ''))
        : [];
    await until(() => lines().length >= 2 || c.hasExited(), 'a round in the history', 90_000);
    expect(c.hasExited(), c.stderr()).toBe(false);
    c.child.kill('SIGHUP');
    const { code } = await c.exited;
    expect(code, c.stderr()).toBe(0);
    expect(c.stderr()).toContain('SIGHUP: finishing the current round and flushing the history');
    const m = /stopped after (\d+) rounds \((\d+) records, \d+ failed, \d+ skipped ticks, 0 write errors\)/.exec(c.stdout());
    expect(m, c.stdout()).not.toBeNull();
    // Every record it made is in the history, whole: two checks a round, no torn line.
    const records = lines().map((l) => JSON.parse(l) as { check: string; round: number });
    expect(records.length).toBe(Number(m?.[2]));
    expect(records.length).toBe(2 * Number(m?.[1]));
  }, 150_000);

  it('serve: closes the service and says so, exit 0', async () => {
    cli = spawnCli(['serve', '--port', '0'], { cwd: dir });
    const c = cli;
    await until(() => c.stdout().includes('Ctrl-C to stop.') || c.hasExited(), 'the service to listen', 90_000);
    expect(c.hasExited(), c.stderr()).toBe(false);
    c.child.kill('SIGHUP');
    const { code, signal } = await c.exited;
    expect(signal).toBeNull();
    expect(code, c.stderr()).toBe(0);
    expect(c.stdout()).toContain('reference service stopped');
  }, 120_000);
});
