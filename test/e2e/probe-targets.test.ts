/**
 * Probes as SRE teams run them: two targets into one real Prometheus and one real Pushgateway
 * (Debian's `prometheus` and `prometheus-pushgateway`, started here), with the generated rules.
 *
 * - staging is down (the reference service in an outage), watched by a probe daemon that
 *   Prometheus scrapes (job `flowgauge-probe`, as docs/probes.md configures it);
 * - production is up, behind TLS with a certificate 2 days from expiry, watched by the CronJob of
 *   deploy/kubernetes/probe-cronjob.yaml (its very script, run by `sh`, with this test's addresses
 *   and `--target-name production`), pushing to the Pushgateway; a one-off staging round pushes
 *   there too.
 *
 * It shows two SLIs (staging all bad, production all good) and two counter sets (two Pushgateway
 * groups that never replace each other), FlowgaugeProbeDown for staging while its prober is up, a
 * certificate ticket for production while every CronJob pod succeeds, and FlowgaugeProberDown
 * (a page) once the daemon is killed. The rules are the generated defaults with every `for`
 * shortened to 2 s (their durations are promtool's to prove: deploy/prometheus/tests).
 *
 * Prometheus scrapes on its own clock, so everything is awaited by polling with deadlines, never
 * by fixed sleeps. Without the binaries (or openssl) the test is skipped loudly, except under
 * CI=true, where it fails.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { join, resolve } from 'node:path';
import { createServer as createTlsServer, type Server as TlsServer } from 'node:tls';
import { parse, parseAllDocuments, stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { readHistory } from '../../src/probe/index.js';
import { ALERT_NAMES, PROBE_METRICS, RECORDING_RULES } from '../../src/slo/metric-names.js';
import { generatePrometheusRules, renderRulesYaml } from '../../src/slo/prometheus-rules.js';
import { startReferenceService, type ReferenceService } from '../../src/target/index.js';
import { findBinary } from '../export/helpers/binaries.js';
import { freePort, startPrometheus, type TestPrometheus } from '../export/helpers/prometheus.js';
import { removeTempDirs, tempDir } from '../probe/helpers.js';
import { CLI_BIN } from '../reliability/cli-process.js';

const ROOT = resolve(import.meta.dirname, '../..');
const NEEDED = ['prometheus', 'prometheus-pushgateway', 'openssl'];
const missing = NEEDED.filter((b) => findBinary(b) === undefined);
const CI = process.env.CI === 'true';
const MISSING = `${missing.join(', ')} not found on PATH: the two-target probe test needs them (apt-get install prometheus prometheus-pushgateway openssl)`;
if (missing.length > 0) console.warn(`\n[flowgauge tests] ${CI ? 'FAILING' : 'SKIPPING'} test/e2e/probe-targets.test.ts: ${MISSING}\n`);

const P = PROBE_METRICS;

interface Sample {
  metric: Record<string, string>;
  value: [number, string];
}

/** The CronJob's script, with this test's addresses and the target's name. */
function cronJobScript(vars: { history: string; pushgateway: string; target: string }): string {
  const docs = parseAllDocuments(readFileSync(join(ROOT, 'deploy/kubernetes/probe-cronjob.yaml'), 'utf8')).map((d) => d.toJS() as Record<string, unknown>);
  const job = docs.find((d) => d.kind === 'CronJob') as { spec: { jobTemplate: { spec: { template: { spec: { containers: { args: string[] }[] } } } } } };
  let script = job.spec.jobTemplate.spec.template.spec.containers[0]?.args.join('\n') ?? '';
  for (const [from, to] of [
    ['/app/bin/flowgauge.mjs', CLI_BIN],
    ['/data/probe-history', vars.history],
    ['http://flowgauge-pushgateway:9091', vars.pushgateway],
    ['probe --once', `probe --once --target-name ${vars.target}`],
  ] as const) {
    expect(script, `the CronJob script has ${from}`).toContain(from);
    script = script.replace(from, to);
  }
  return script;
}

describe.skipIf(missing.length > 0 && !CI)('two targets, two probers, one Prometheus and one Pushgateway', () => {
  let staging: ReferenceService | undefined;
  let production: ReferenceService | undefined;
  let front: TlsServer | undefined;
  const sockets = new Set<Socket>();
  let gateway: ChildProcess | undefined;
  let daemon: ChildProcess | undefined;
  let daemonLog = '';
  let gatewayUrl = '';
  let productionUrl = '';
  let certFile = '';
  let prom: TestPrometheus | undefined;
  let dir = '';

  const p = (): TestPrometheus => prom as TestPrometheus;
  const samples = async (expr: string): Promise<Sample[]> => (await p().query(expr)) as Sample[];
  const firing = async (alert: string): Promise<Record<string, string>[]> =>
    (await samples(`ALERTS{alertname="${alert}",alertstate="firing"}`)).map((s) => s.metric);

  beforeAll(async () => {
    if (missing.length > 0) throw new Error(MISSING);
    dir = tempDir('flowgauge-targets-');
    // A certificate 2 days from expiry, under the probe's 14-day minimum.
    certFile = join(dir, 'cert.pem');
    const keyFile = join(dir, 'key.pem');
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', '/CN=localhost', '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', keyFile, '-out', certFile], { stdio: 'ignore' });

    staging = await startReferenceService({ latency: 'none' });
    staging.faults.set({ outage: true });
    production = await startReferenceService({ latency: 'none' });
    const upstream = production.port;
    front = createTlsServer({ key: readFileSync(keyFile), cert: readFileSync(certFile) }, (client) => {
      const up = connect(upstream, '127.0.0.1');
      for (const s of [client, up]) {
        sockets.add(s);
        s.on('close', () => sockets.delete(s));
        s.on('error', () => {
          client.destroy();
          up.destroy();
        });
      }
      client.pipe(up).pipe(client);
    });
    await new Promise<void>((r) => front?.listen(0, '127.0.0.1', () => r()));
    productionUrl = `https://127.0.0.1:${(front.address() as AddressInfo).port}/v1`;

    const gatewayPort = await freePort();
    gatewayUrl = `http://127.0.0.1:${gatewayPort}`;
    // Memory only: Debian's default persistence file is shared by every Pushgateway started on the machine.
    gateway = spawn('prometheus-pushgateway', [`--web.listen-address=127.0.0.1:${gatewayPort}`, '--persistence.file=', '--log.level=warn'], { stdio: 'ignore' });

    // The staging prober: a daemon, scraped. A round a second, so the test needs no long waits.
    const daemonPort = await freePort();
    daemon = spawn(
      process.execPath,
      [CLI_BIN, 'probe', '--interval', '1s', '--base-url', staging.baseUrl, '--target-name', 'staging', '--history', join(dir, 'staging-history'), '--metrics-port', String(daemonPort), '--quiet'],
      { env: { ...process.env, FLOWGAUGE_TOKEN: staging.tokens.pro }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    daemon.stdout?.on('data', (b: Buffer) => (daemonLog += b.toString()));
    daemon.stderr?.on('data', (b: Buffer) => (daemonLog += b.toString()));

    // The generated defaults, every `for` shortened: the expressions are what is tested here.
    const rules = parse(renderRulesYaml(generatePrometheusRules({ objective: 0.999, period: '30d', probeInterval: '30s' }))) as { groups: { rules: { for?: string }[] }[] };
    for (const g of rules.groups) for (const r of g.rules) if (r.for !== undefined) r.for = '2s';
    prom = await startPrometheus({
      targets: [],
      rulesYaml: stringify(rules, { lineWidth: 0 }),
      jobs: [
        { name: 'pushgateway', targets: [`127.0.0.1:${gatewayPort}`], honorLabels: true },
        { name: 'flowgauge-probe', targets: [`127.0.0.1:${daemonPort}`] },
      ],
    });
    await p().until(
      async () => (await samples(`up{job="flowgauge-probe"} == 1`)).length === 1 && (await samples(`up{job="pushgateway"} == 1`)).length === 1,
      () => `the daemon and the Pushgateway were never both up\n--- daemon ---\n${daemonLog}`,
      90_000,
    );
  }, 180_000);

  afterAll(async () => {
    for (const child of [daemon, gateway]) {
      if (child !== undefined && child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGKILL');
        await exited;
      }
    }
    await prom?.stop();
    for (const s of sockets) s.destroy();
    await new Promise((r) => (front === undefined ? r(undefined) : front.close(r)));
    await staging?.close();
    await production?.close();
    removeTempDirs();
  });

  it('the CronJob of the healthy target: every pod succeeds, the expiring certificate a finding in its log, not a failure', async () => {
    const script = cronJobScript({ history: join(dir, 'production-history'), pushgateway: gatewayUrl, target: 'production' });
    const env = { ...process.env, FLOWGAUGE_TOKEN: (production as ReferenceService).tokens.pro, FLOWGAUGE_BASE_URL: productionUrl, NODE_EXTRA_CA_CERTS: certFile };
    for (let tick = 0; tick < 3; tick++) {
      // Not spawnSync: the targets and their TLS front live in this process and must keep answering.
      const pod = await new Promise<{ status: number | null; stdout: string; stderr: string }>((done) => {
        const child = spawn('sh', ['-c', script], { env });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
        child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
        child.on('close', (status) => done({ status, stdout, stderr }));
      });
      expect(pod.status, `tick ${tick}: ${pod.stderr}`).toBe(0);
      expect(pod.stderr, pod.stdout).toMatch(/flowgauge: finding: listFlows: the certificate has [12]\.\d days left .* under --cert-min-days 14: renew it/);
      expect(pod.stderr).not.toMatch(/failing the pod|objective missed|not delivered/);
    }
  }, 400_000);

  it('a one-off staging round pushed to the same Pushgateway keeps its own group: two counter sets, neither replaced', async () => {
    const io = memoryIo({ cwd: dir, env: { FLOWGAUGE_TOKEN: (staging as ReferenceService).tokens.pro } });
    const code = await main(['probe', '--once', '--interval', '1m', '--base-url', (staging as ReferenceService).baseUrl, '--target-name', 'staging', '--history', join(dir, 'staging-once'), '--pushgateway', gatewayUrl, '--quiet'], io);
    expect(code, io.err()).toBe(1);
    const groups = (await (await fetch(`${gatewayUrl}/api/v1/metrics`)).json()) as { data: { labels: Record<string, string> }[] };
    expect(groups.data.map((g) => g.labels).sort((a, b) => String(a.target).localeCompare(String(b.target)))).toEqual([
      { job: 'flowgauge_probe', target: 'production' },
      { job: 'flowgauge_probe', target: 'staging' },
    ]);
    // Both groups in Prometheus: production's three rounds were not replaced by staging's push.
    const total = `${P.total.name}{job="flowgauge_probe",check="listFlows"}`;
    let seen: Sample[] = [];
    await p().until(
      async () => (seen = await samples(total)).length === 4,
      () => `pushed counters: ${JSON.stringify(seen.map((s) => [s.metric, s.value[1]]))}`,
    );
    const count = (target: string, result: string): number => Number(seen.find((s) => s.metric.target === target && s.metric.result === result)?.value[1]);
    expect([count('production', 'success'), count('production', 'failure')]).toEqual([3, 0]);
    expect([count('staging', 'success'), count('staging', 'failure')]).toEqual([0, 1]);
    // What each pushed is what its history holds.
    expect((await readHistory(join(dir, 'production-history'))).records.filter((r) => r.check === 'listFlows').map((r) => r.target)).toEqual(['production', 'production', 'production']);
  }, 120_000);

  it('two SLIs, one per target (staging all bad, production all good), never one blend', async () => {
    const ratio = RECORDING_RULES.probeErrorRatioByCheck('5m');
    let seen: Sample[] = [];
    await p().until(
      async () => {
        seen = await samples(`${ratio}{check="listFlows"}`);
        return seen.length === 2 && seen.every((s) => Number.isFinite(Number(s.value[1])));
      },
      () => `recorded ${ratio}: ${JSON.stringify(seen.map((s) => [s.metric, s.value[1]]))}`,
      60_000,
    );
    const of = (target: string): number => Number(seen.find((s) => s.metric.target === target)?.value[1]);
    expect(of('staging')).toBe(1);
    expect(of('production')).toBe(0);
    const perTarget = await samples(RECORDING_RULES.probeErrorRatio('5m'));
    expect(perTarget.map((s) => s.metric.target).sort()).toEqual(['production', 'staging']);
  }, 120_000);

  it('staging down while its prober is up pages FlowgaugeProbeDown for staging, not the prober alert; production has a certificate ticket, no page', async () => {
    let down: Record<string, string>[] = [];
    await p().until(
      async () => (down = await firing(ALERT_NAMES.probeDown)).some((a) => a.target === 'staging'),
      () => `FlowgaugeProbeDown firing: ${JSON.stringify(down)}\n--- daemon ---\n${daemonLog}`,
      60_000,
    );
    expect(down.every((a) => a.target === 'staging' && a.severity === 'critical')).toBe(true);
    expect(await firing(ALERT_NAMES.proberDown)).toEqual([]);
    let cert: Record<string, string>[] = [];
    await p().until(
      async () => (cert = await firing(ALERT_NAMES.certExpiry)).length > 0,
      () => `FlowgaugeCertificateExpiry firing: ${JSON.stringify(cert)}`,
      60_000,
    );
    // A ticket, for production only; never a page.
    expect(new Set(cert.map((a) => `${a.target}/${a.severity}`))).toEqual(new Set(['production/warning']));
  }, 150_000);

  it('the daemon killed: its series vanish and FlowgaugeProberDown pages', async () => {
    const d = daemon as ChildProcess;
    const exited = new Promise((r) => d.once('exit', r));
    d.kill('SIGKILL');
    await exited;
    let paged: Record<string, string>[] = [];
    await p().until(
      async () => (paged = await firing(ALERT_NAMES.proberDown)).length > 0,
      () => `FlowgaugeProberDown firing: ${JSON.stringify(paged)}`,
      60_000,
    );
    expect(paged).toEqual([expect.objectContaining({ job: 'flowgauge-probe', severity: 'critical' })]);
    // What it was needed for: the daemon's own probe series are gone from Prometheus.
    await p().until(
      async () => (await samples(`${P.success.name}{job="flowgauge-probe"}`)).length === 0,
      () => 'the dead daemon\'s series are still there',
    );
  }, 120_000);
});
