/**
 * The probe daemon as Prometheus scrapes it in Kubernetes: `/metrics` counts continue from the
 * history it started on (a restarted pod is no counter reset), and the blackbox-style
 * `/probe?check=<name>` runs that check at the scrape and answers its gauges, without adding
 * to the history or the counters; an unknown check is a 400 naming the ones it runs.
 */
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { readHistory } from '../../src/probe/index.js';
import { PROBE_ENDPOINT_METRICS, PROBE_METRICS } from '../../src/slo/metric-names.js';
import { startReferenceService, type ReferenceService } from '../../src/target/index.js';
import { parseExposition, valueOf } from '../export/helpers/exposition.js';
import { freePort } from '../helpers/free-port.js';
import { removeTempDirs, rounds, tempDir } from './helpers.js';
import { writeFileSync, mkdirSync } from 'node:fs';

let service: ReferenceService;
beforeAll(async () => {
  service = await startReferenceService({ latency: 'none' });
});
afterAll(async () => {
  await service.close();
});
afterEach(() => removeTempDirs());

/** Polls `fn` until it returns a value (every 50 ms, at most `ms`). */
async function until<T>(fn: () => Promise<T | undefined>, what: string, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn().catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('probe daemon: /metrics and /probe', () => {
  it('continues the counters from the history and answers /probe?check= for one check, apart from them', async () => {
    const cwd = tempDir();
    mkdirSync(join(cwd, 'h'));
    // Ten earlier rounds, two of them failed, an hour ago: the counters start from these.
    const earlier = rounds(Date.now() - 3_600_000, 10, ['listFlows'], (i) => i >= 8);
    writeFileSync(join(cwd, 'h', `probe-${new Date(Date.parse(earlier[0]!.time)).toISOString().slice(0, 10)}.jsonl`), earlier.map((r) => `${JSON.stringify(r)}\n`).join(''));
    const port = await freePort();
    const io = memoryIo({ cwd });
    const argv = ['probe', '--interval', '1m', '--duration', '4s', '--history', 'h', '--checks', 'listFlows,getFlow', '--metrics-port', String(port), '--quiet'];
    const daemon = main([...argv, '--base-url', service.baseUrl, '--token', service.tokens.pro], io);
    const base = `http://127.0.0.1:${port}`;
    const scrape = async (): Promise<ReturnType<typeof parseExposition>> => parseExposition(await (await fetch(`${base}/metrics`)).text());

    // The first round runs at start; once it is in, the history's ten are under it.
    const first = await until(async () => {
      const s = await scrape();
      // Both checks of the round: the first check's record arrives before the second's.
      const ran = (check: string) => s.some((x) => x.name === PROBE_METRICS.lastRun.name && x.labels.check === check);
      return ran('listFlows') && ran('getFlow') ? s : undefined;
    }, 'the first round');
    const P = PROBE_METRICS;
    expect(valueOf(first, P.total.name, { check: 'listFlows', result: 'success' })).toBe(8 + 1);
    expect(valueOf(first, P.total.name, { check: 'listFlows', result: 'failure' })).toBe(2);
    expect(valueOf(first, `${P.duration.name}_count`, { check: 'listFlows', phase: 'total' })).toBe(11);
    expect(valueOf(first, P.total.name, { check: 'getFlow', result: 'success' })).toBe(1);

    // One check on demand, in the blackbox exporter's names.
    const res = await fetch(`${base}/probe?check=getFlow`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const B = PROBE_ENDPOINT_METRICS;
    const p = parseExposition(await res.text());
    expect(valueOf(p, B.success.name, { check: 'getFlow' })).toBe(1);
    expect(valueOf(p, B.httpStatus.name, { check: 'getFlow' })).toBe(200);
    expect(valueOf(p, B.duration.name, { check: 'getFlow' })).toBeGreaterThan(0);
    expect(valueOf(p, B.httpDuration.name, { check: 'getFlow', phase: 'total' })).toBeGreaterThan(0);
    expect(p.some((x) => x.name.startsWith('flowgauge_'))).toBe(false);

    // Not a probe of the schedule: neither counted nor recorded.
    const after = await scrape();
    expect(valueOf(after, P.total.name, { check: 'getFlow', result: 'success' })).toBe(1);

    for (const q of ['?check=stream', '?check=', '']) {
      const bad = await fetch(`${base}/probe${q}`);
      expect(bad.status, q).toBe(400);
      expect(await bad.text(), q).toMatch(/use \/probe\?check=<name> with one of listFlows, getFlow/);
    }

    expect(await daemon).toBe(0);
    expect(io.err()).toBe('');
    expect(io.out()).toMatch(/one check on demand at http:\/\/127\.0\.0\.1:\d+\/probe\?check=<name>/);
    const { records } = await readHistory(join(cwd, 'h'));
    expect(records).toHaveLength(10 + 2);
  }, 20_000);
});
