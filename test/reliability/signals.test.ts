/**
 * Stopping a run: the CLI as a real process at 1,000 requests/s against a reference service
 * in this process, stopped by SIGINT, SIGTERM or SIGHUP (the terminal closed: an SSH session
 * that dropped). The first signal must stop scheduling, drain and write a complete report marked
 * `interrupted`, and exit 128 + the signal (130, 143, 129); a second one must quit at once. A
 * target that dies mid-run must not stop the run from reporting.
 *
 * How long signal → report.json takes is recorded as a figure, not asserted (a loaded machine
 * took 2.2–6.3 s): that the stop does not wait for the schedule is checked by what the report
 * counts, a run stopped far before its 60 s. The test process polls the file every 5 ms.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { REPORT_JSON_SCHEMA, type Report } from '../../src/report/index.js';
import { startReferenceService, type ReferenceService, type ReferenceServiceOptions } from '../../src/target/index.js';
import { killIfRunning, spawnCli, until, type CliProcess } from './cli-process.js';
import { recordFigures } from './figures.js';

const TOKEN = 'fg_signals_token_T';
const validate = new Ajv({ allErrors: true, strict: false }).compile(REPORT_JSON_SCHEMA);

let dir: string;
let service: ReferenceService | undefined;
let cli: CliProcess | undefined;
const signalToReportMs: Record<string, number> = {};

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'fg-signals-'));
});
afterEach(async () => {
  await killIfRunning(cli);
  cli = undefined;
  await service?.close();
  service = undefined;
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  recordFigures('signals', { signalToReportMs });
});

async function startService(extra: ReferenceServiceOptions = {}): Promise<ReferenceService> {
  service = await startReferenceService({
    latency: 'none',
    tokens: { [TOKEN]: { account: 'acct_b', tier: { limitPerMinute: 10_000_000 } } },
    ...extra,
  });
  return service;
}

function scenarioFile(name: string, load: Record<string, unknown>, mix: readonly Record<string, unknown>[], thresholds: Record<string, string> = {}): string {
  const path = join(dir, `${name}.json`);
  writeFileSync(path, JSON.stringify({ name, tier: { limitPerMinute: 10_000_000 }, load: { executor: 'constant-arrival-rate', ...load }, mix, thresholds }));
  return path;
}

const MIX = [
  { op: 'run', weight: 2 },
  { op: 'listFlows', weight: 1 },
  { op: 'getFlow', weight: 1 },
  { op: 'stream', weight: 1 },
];

function readReport(path: string): Report {
  const report = JSON.parse(readFileSync(path, 'utf8')) as Report;
  expect(validate(report), JSON.stringify(validate.errors)).toBe(true);
  return report;
}

/** Every request the run started is in some op's count, or cancelled at the stop. */
function expectNoRecordLost(report: Report): void {
  const counted = Object.values(report.ops).reduce((n, s) => n + (s?.count ?? 0), 0) + (report.load.cancelled ?? 0);
  expect(counted).toBe(report.load.started);
}

/** 128 + the signal's number, as a shell reports it. */
const CODE = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 } as const;

async function interruptOnce(signal: 'SIGINT' | 'SIGTERM' | 'SIGHUP'): Promise<void> {
  const svc = await startService();
  const out = join(dir, `out-${signal}`);
  const file = scenarioFile(`sig-${signal.toLowerCase()}`, { rate: '1000/s', duration: '60s' }, MIX);
  cli = spawnCli(['run', file, '--base-url', svc.baseUrl, '--token', TOKEN, '--out', out, '--quiet'], { cwd: dir });
  const proc = cli;
  await until(() => svc.stats().requests > 500 || proc.hasExited(), 'the run to pass 500 requests');
  expect(proc.hasExited(), proc.stderr()).toBe(false);

  const reportPath = join(out, 'report.json');
  const t0 = performance.now();
  proc.child.kill(signal);
  await until(() => existsSync(reportPath) || proc.hasExited(), 'report.json', 10_000);
  const elapsed = performance.now() - t0;
  signalToReportMs[signal] = Math.round(elapsed);
  expect(existsSync(reportPath), proc.stderr()).toBe(true);
  // How long the report took is a figure (recordFigures above), not a bound: a loaded machine
  // took 2.2–6.3 s. That the stop does not wait for the schedule is checked by load.started below.

  const { code } = await proc.exited;
  // The report is written, but a partial run is no pass: 128 + the signal whatever the thresholds say.
  expect(code, proc.stderr()).toBe(CODE[signal]);
  expect(proc.stderr()).toContain(`${signal}: stopping`);
  const report = readReport(reportPath);
  expect(report.interrupted).toBe(true);
  // The service had answered over 500 (the preparation among them) when the signal went.
  expect(report.load.started).toBeGreaterThanOrEqual(500);
  // Stopped long before the 60 s schedule ended.
  expect(report.load.started).toBeLessThan(60_000);
  expectNoRecordLost(report);
  expect(report.slo.bad).toBe(0);
  expect(existsSync(join(out, 'report.md'))).toBe(true);
  // What a person reads says so too: never PASS for a partial run.
  expect(report.verdict).toBe('INTERRUPTED');
  expect(readFileSync(join(out, 'report.md'), 'utf8')).toContain('## ⏹️ INTERRUPTED');
  expect(readFileSync(join(out, 'report.md'), 'utf8')).not.toContain('PASS');
}

describe('signals', () => {
  it('SIGINT at 1,000 requests/s: a complete, schema-valid report marked interrupted, the schedule cut short', async () => {
    await interruptOnce('SIGINT');
  });

  it('SIGTERM at 1,000 requests/s: the same, exit 143', async () => {
    await interruptOnce('SIGTERM');
  });

  it('SIGHUP at 1,000 requests/s (the SSH session dropped): the same, exit 129 (before: killed at once, no report)', async () => {
    await interruptOnce('SIGHUP');
  });

  it('a second SIGINT during a long drain exits at once with 130', async () => {
    // Runs take 60 s to answer and the grace period is 60 s: only the second signal can end this soon.
    const svc = await startService({ faults: { latencyMs: { run: '60s' } } });
    const file = scenarioFile('sig-twice', { rate: '200/s', duration: '60s', gracefulStop: '60s' }, [
      { op: 'run', weight: 1 },
      { op: 'listFlows', weight: 1 },
    ]);
    const out = join(dir, 'out-twice');
    cli = spawnCli(['run', file, '--base-url', svc.baseUrl, '--token', TOKEN, '--out', out, '--quiet'], { cwd: dir });
    const proc = cli;
    // listFlows answers at once; by the time 20 have (beyond the preparation's), about as many
    // runs are held in flight. (Soon every pooled connection holds a run and listFlows queues too.)
    await until(() => svc.stats().requests > 21 || proc.hasExited(), 'the run to pass 20 answered requests');
    proc.child.kill('SIGINT');
    await until(() => proc.stderr().includes('draining') || proc.hasExited(), 'the drain to begin');
    expect(proc.hasExited(), proc.stderr()).toBe(false);
    proc.child.kill('SIGINT');
    const { code } = await proc.exited;
    expect(code).toBe(130);
    // It quit in the middle of the drain: no report.
    expect(existsSync(join(out, 'report.json'))).toBe(false);
  });

  it('a target that dies mid-run: the run completes and reports the connection errors', async () => {
    const svc = await startService();
    const file = scenarioFile('target-dies', { rate: '200/s', duration: '2s', gracefulStop: '2s' }, [{ op: 'listFlows', weight: 1 }], {
      availability: '>=99.9%',
    });
    const out = join(dir, 'out-dies');
    const io = memoryIo({ cwd: dir });
    const running = main(['run', file, '--base-url', svc.baseUrl, '--token', TOKEN, '--out', out, '--quiet'], io);
    await until(() => svc.stats().requests > 100, 'the run to pass 100 requests');
    await svc.close();
    service = undefined;
    const code = await running;
    // The availability threshold fails: exit 1, not a crash (no internal error) and not 3.
    expect(code, io.err()).toBe(1);
    expect(io.err()).not.toMatch(/internal error/);
    const report = readReport(join(out, 'report.json'));
    expect(report.interrupted).toBe(false);
    expect(report.load.started).toBe(400);
    expectNoRecordLost(report);
    const s = report.ops.listFlows;
    const connectionErrors = (s?.errors.CONNECTION_REFUSED ?? 0) + (s?.errors.CONNECTION_RESET ?? 0);
    expect(connectionErrors).toBeGreaterThan(0);
    expect(s?.bad).toBe(connectionErrors);
    // What the service answered before it closed (its count included the preparation).
    expect(s?.good).toBeGreaterThanOrEqual(100);
    expect(report.thresholds[0]).toMatchObject({ metric: 'availability', passed: false });
  });

  it('SIGINT or SIGTERM during the post-run audit: the report says interrupted and the exit is 128 + the signal', async () => {
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      const svc = await startService();
      // A target double: the service itself, except that the audit's first read stalls until the
      // signal is sent, so the signal lands inside the audit by construction, not by timing.
      let auditReached = false;
      const proxy: Server = createServer((req, res) => {
        if ((req.url ?? '').includes('/analytics/usage')) {
          auditReached = true;
          req.on('close', () => res.destroy());
          return;
        }
        const up = httpRequest(`${svc.baseUrl.replace(/\/v1$/, '')}${req.url ?? ''}`, { method: req.method, headers: req.headers }, (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        });
        up.on('error', () => res.destroy());
        req.pipe(up);
      });
      await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
      try {
        const base = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/v1`;
        const file = scenarioFile(`audit-${signal.toLowerCase()}`, { rate: '20/s', duration: '1s' }, [{ op: 'run', weight: 1 }]);
        const out = join(dir, `out-audit-${signal}`);
        cli = spawnCli(['run', file, '--base-url', base, '--token', TOKEN, '--out', out, '--quiet'], { cwd: dir });
        const proc = cli;
        await until(() => auditReached || proc.hasExited(), 'the audit to begin', 60_000);
        expect(proc.hasExited(), proc.stderr()).toBe(false);
        proc.child.kill(signal);
        const { code } = await proc.exited;
        expect(code, proc.stderr()).toBe(CODE[signal]);
        const report = readReport(join(out, 'report.json'));
        expect(report.interrupted).toBe(true);
        expect(report.verdict).toBe('INTERRUPTED');
        expect(report.audit).toMatchObject({ incomplete: true });
        expectNoRecordLost(report);
      } finally {
        await new Promise((resolve) => proxy.close(resolve));
        proxy.closeAllConnections();
        await svc.close();
        service = undefined;
      }
    }
  }, 120_000);
});
