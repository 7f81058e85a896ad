/**
 * The probe CronJob's metrics as an SRE deploys them: six `probe --once --pushgateway` runs
 * against a real Pushgateway (Debian's `prometheus-pushgateway`), scraped by a real Prometheus
 * with `honor_labels: true`. Each push replaces the group, so only totals read from the
 * history make `increase(flowgauge_probe_total[…])` see the probes (a per-process count pushes
 * 1 every time and increase() reads 0), and the last-run timestamp says how stale the group is.
 *
 * Prometheus scrapes on its own clock, so the runs are real: after each push the test waits
 * (polling, with a deadline) until Prometheus has scraped that push's value, never a fixed sleep.
 * Without the binaries the test is skipped loudly, except under CI=true, where it fails.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { PROBE_METRICS } from '../../src/slo/metric-names.js';
import { startReferenceService, type ReferenceService } from '../../src/target/index.js';
import { findBinary } from '../export/helpers/binaries.js';
import { freePort, startPrometheus, type TestPrometheus } from '../export/helpers/prometheus.js';
import { removeTempDirs, tempDir } from '../probe/helpers.js';

const NEEDED = { prometheus: 'prometheus', 'prometheus-pushgateway': 'prometheus-pushgateway' } as const;
const missing = Object.keys(NEEDED).filter((b) => findBinary(b) === undefined);
const CI = process.env.CI === 'true';
const MISSING = `${missing.join(' and ')} not found on PATH: the Pushgateway end-to-end test needs them (apt-get install prometheus prometheus-pushgateway)`;
if (missing.length > 0) console.warn(`\n[flowgauge tests] ${CI ? 'FAILING' : 'SKIPPING'} test/e2e/probe-pushgateway.test.ts: ${MISSING}\n`);

const RUNS = 6;
const P = PROBE_METRICS;
const SUCCESS = `${P.total.name}{job="flowgauge_probe",check="listFlows",result="success"}`;

describe.skipIf(missing.length > 0 && !CI)('probe --once pushed to a real Pushgateway, scraped by a real Prometheus', () => {
  let service: ReferenceService | undefined;
  let gateway: ChildProcess | undefined;
  let gatewayLog = '';
  let gatewayUrl = '';
  let prom: TestPrometheus | undefined;

  beforeAll(async () => {
    if (missing.length > 0) throw new Error(MISSING);
    service = await startReferenceService({ latency: 'none' });
    const port = await freePort();
    gatewayUrl = `http://127.0.0.1:${port}`;
    // Memory only: Debian's default persistence file is shared by every Pushgateway started on the machine.
    gateway = spawn('prometheus-pushgateway', [`--web.listen-address=127.0.0.1:${port}`, '--persistence.file=', '--log.level=warn'], { stdio: ['ignore', 'pipe', 'pipe'] });
    gateway.stdout?.on('data', (b: Buffer) => (gatewayLog += b.toString()));
    gateway.stderr?.on('data', (b: Buffer) => (gatewayLog += b.toString()));
    prom = await startPrometheus({ targets: [`127.0.0.1:${port}`], honorLabels: true });
    await prom.targetUp();
  }, 60_000);

  afterAll(async () => {
    await prom?.stop();
    if (gateway !== undefined && gateway.exitCode === null) {
      const exited = new Promise((r) => gateway?.once('exit', r));
      gateway.kill('SIGTERM');
      await exited;
    }
    await service?.close();
    removeTempDirs();
  });

  it('six runs: increase() counts them, and the last-run timestamp is the last push', async () => {
    const p = prom as TestPrometheus;
    const svc = service as ReferenceService;
    const cwd = tempDir();
    const value = async (expr: string): Promise<number | undefined> => {
      const [first] = (await p.query(expr)) as { value: [number, string] }[];
      return first === undefined ? undefined : Number(first.value[1]);
    };
    let lastRunStartS = 0;
    for (let i = 1; i <= RUNS; i++) {
      lastRunStartS = Date.now() / 1000;
      const io = memoryIo({ cwd });
      const code = await main(
        ['probe', '--once', '--interval', '1m', '--history', 'h', '--checks', 'listFlows', '--quiet', '--base-url', svc.baseUrl, '--token', svc.tokens.pro, '--pushgateway', gatewayUrl],
        io,
      );
      expect(code, io.err()).toBe(0);
      expect(io.err(), gatewayLog).toBe('');
      // Wait for Prometheus to have scraped this push before the next replaces it.
      let seen: number | undefined;
      await p.until(
        async () => (seen = await value(SUCCESS)) === i,
        () => `after push ${i}, Prometheus read ${String(seen)} for ${SUCCESS}\n--- pushgateway log ---\n${gatewayLog}`,
      );
    }

    const increase = await value(`increase(${SUCCESS}[2m])`);
    // Six samples 1..6: at least the five steps between them (extrapolation may add a little).
    expect(increase).toBeGreaterThanOrEqual(RUNS - 1);
    expect(await value(`sum(increase(${P.duration.name}_count{job="flowgauge_probe",phase="total"}[2m]))`)).toBeGreaterThanOrEqual(RUNS - 1);
    // The failure series exists from the first run, so a failure ratio reads 0, not "no data".
    expect(await value(`${P.total.name}{job="flowgauge_probe",check="listFlows",result="failure"}`)).toBe(0);
    const lastRun = (await value(`${P.lastRun.name}{job="flowgauge_probe",check="listFlows"}`)) as number;
    expect(lastRun).toBeGreaterThanOrEqual(lastRunStartS);
    expect(lastRun - lastRunStartS).toBeLessThan(10);
    // What a staleness alert reads: seconds since the CronJob last probed.
    const age = (await value(`time() - ${P.lastRun.name}{job="flowgauge_probe",check="listFlows"}`)) as number;
    expect(age).toBeGreaterThanOrEqual(0);
    expect(age).toBeLessThan(60);
  }, 120_000);
});
