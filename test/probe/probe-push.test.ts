/**
 * `probe --once --pushgateway` as a CronJob runs it: a new process a minute, each pushing the
 * group `job="flowgauge_probe"`, which replaces the previous push. The counters must be the
 * history's cumulative totals, so they grow push after push and `increase()` over the
 * Pushgateway's series sees every probe; a per-process count would push 1 every time.
 * The wall clock moves a minute a tick by shifting `performance.now` (the system clock's source).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { readHistory } from '../../src/probe/index.js';
import { PROBE_METRICS } from '../../src/slo/metric-names.js';
import { startReferenceService, type ReferenceService } from '../../src/target/index.js';
import { parseExposition, valueOf, type Series } from '../export/helpers/exposition.js';
import { removeTempDirs, tempDir } from './helpers.js';

const P = PROBE_METRICS;
let service: ReferenceService;
let gateway: Server;
let gatewayUrl = '';
const pushes: { url: string; body: string }[] = [];

beforeAll(async () => {
  service = await startReferenceService({ latency: 'none' });
  gateway = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      pushes.push({ url: req.url ?? '', body });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => gateway.listen(0, '127.0.0.1', () => r()));
  gatewayUrl = `http://127.0.0.1:${(gateway.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((r) => gateway.close(() => r()));
  await service.close();
});
afterEach(() => {
  vi.restoreAllMocks();
  removeTempDirs();
  pushes.length = 0;
});

/** Runs `ticks` CronJob ticks a minute apart; those in `down` probe a closed port. Returns each tick's wall-clock span (start, end). */
async function cronJob(cwd: string, ticks: number, down: (i: number) => boolean = () => false): Promise<{ start: number; end: number }[]> {
  const realNow = performance.now.bind(performance);
  let offsetMs = 0;
  vi.spyOn(performance, 'now').mockImplementation(() => realNow() + offsetMs);
  const start = performance.timeOrigin + performance.now();
  const deadUrl = service.baseUrl.replace(/:\d+\//, ':1/');
  const times: { start: number; end: number }[] = [];
  for (let i = 0; i < ticks; i++) {
    offsetMs += start + i * 60_000 - (performance.timeOrigin + performance.now());
    const tickStart = performance.timeOrigin + performance.now();
    // One target, down or up: named, since the dead port would otherwise be a target of its own.
    const argv = ['probe', '--once', '--interval', '1m', '--history', 'h', '--checks', 'listFlows', '--quiet', '--target-name', 'api'];
    const io = memoryIo({ cwd });
    const code = await main([...argv, '--base-url', down(i) ? deadUrl : service.baseUrl, '--token', service.tokens.pro, '--pushgateway', gatewayUrl], io);
    expect(code, io.err()).toBe(down(i) ? 1 : 0);
    expect(io.err()).toBe('');
    times.push({ start: tickStart, end: performance.timeOrigin + performance.now() });
  }
  return times;
}

const pushed = (i: number): Series[] => parseExposition(pushes[i]?.body ?? '');

describe('probe --once --pushgateway, six CronJob ticks', () => {
  it('pushes cumulative totals read from the history, so each push counts every probe so far', async () => {
    const cwd = tempDir();
    const times = await cronJob(cwd, 6, (i) => i === 4);
    expect(pushes).toHaveLength(6);
    expect(new Set(pushes.map((p) => p.url))).toEqual(new Set(['/metrics/job/flowgauge_probe/target/api']));
    const ok = pushes.map((_, i) => valueOf(pushed(i), P.total.name, { check: 'listFlows', result: 'success' }));
    const bad = pushes.map((_, i) => valueOf(pushed(i), P.total.name, { check: 'listFlows', result: 'failure' }));
    expect(ok).toEqual([1, 2, 3, 4, 4, 5]);
    expect(bad).toEqual([0, 0, 0, 0, 1, 1]);
    // The histogram is cumulative too: increase() of its count is the probes made.
    const counts = pushes.map((_, i) => valueOf(pushed(i), `${P.duration.name}_count`, { check: 'listFlows', phase: 'total' }));
    expect(counts).toEqual([1, 2, 3, 4, 5, 6]);
    expect(valueOf(pushed(5), `${P.duration.name}_count`, { check: 'listFlows', phase: 'check' })).toBe(6);
    // What the history holds is what was pushed.
    const { records } = await readHistory(join(cwd, 'h'));
    expect(records.filter((r) => r.success)).toHaveLength(ok.at(-1) as number);
    // The last run's time, so an alert can say the CronJob stopped: within the round it ran in
    // (between that tick's start and its process's end, however long a busy machine made it).
    for (let i = 0; i < 6; i++) {
      const last = valueOf(pushed(i), P.lastRun.name, { check: 'listFlows' });
      const tick = times[i] as { start: number; end: number };
      expect(last * 1000).toBeGreaterThanOrEqual(tick.start);
      // (1 ms for the seconds' float: the pushed value is finishedAt in s, printed and read back.)
      expect(last * 1000).toBeLessThanOrEqual(tick.end + 1);
    }
    // When the check last succeeded survives the failed round's push (it replaced the group).
    const lastOk = pushes.map((_, i) => valueOf(pushed(i), P.lastSuccess.name, { target: 'api', check: 'listFlows' }));
    // The same instant, to the microsecond: the failed round's process reads it back from the
    // history (ms), the previous one pushed its own float of seconds, and the two may differ in
    // the last binary digit.
    expect(lastOk[4]).toBeCloseTo(lastOk[3] as number, 5);
    expect(lastOk[5]).toBeGreaterThan(lastOk[4] as number);
    // Over http no certificate was seen, so none is claimed.
    expect(pushed(5).some((s) => s.name === P.tlsCertExpiry.name)).toBe(false);
  });
});
