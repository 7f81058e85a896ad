/** `flowgauge probe` and `flowgauge slo status`, run in-process through `main`. */
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ExitCode } from '../../src/cli/exit-codes.js';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { readHistory, type ProbeRecord } from '../../src/probe/index.js';
import { startSilentServer } from '../export/helpers/silent-server.js';
import { removeTempDirs, rounds, tempDir } from '../probe/helpers.js';

const ROOT = resolve(import.meta.dirname, '../..');
const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise<void>((r) => s.close(() => r()))));
  removeTempDirs();
});

/** Runs `argv` through `main`; resolves to the exit code and what was printed. */
async function cli(argv: string[], cwd: string): Promise<{ code: ExitCode; out: string; err: string }> {
  const io = memoryIo({ cwd });
  const code = await main(argv, io);
  return { code, out: io.out(), err: io.err() };
}

async function deadPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

function historyText(dir: string): string {
  return readdirSync(dir)
    .map((f) => readFileSync(join(dir, f), 'utf8'))
    .join('');
}

describe('flowgauge probe', () => {
  it('--once against the embedded service: every check runs once, is recorded, and exits 0', async () => {
    const cwd = tempDir();
    const r = await cli(['probe', '--once', '--history', 'hist'], cwd);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/embedded reference service/);
    expect(r.out).toMatch(/all 5 checks succeeded/);
    const { records } = await readHistory(join(cwd, 'hist'));
    expect(records.map((x) => [x.check, x.success])).toEqual([
      ['listFlows', true],
      ['getFlow', true],
      ['run', true],
      ['stream', true],
      ['trigger', true],
    ]);
    expect(`${r.out}${historyText(join(cwd, 'hist'))}`).not.toContain('fg_pro_demo');
  });

  it('--once exits 1 when a check fails, records why, and never shows the token', async () => {
    const cwd = tempDir();
    const token = 'fg_live_very_secret_token';
    const port = await deadPort();
    const r = await cli(['probe', '--once', '--history', 'h', '--base-url', `http://127.0.0.1:${port}/v1`, '--token', token, '--checks', 'listFlows,getFlow', '--json'], cwd);
    expect(r.code).toBe(1);
    const printed = r.out.trim().split('\n').map((l) => JSON.parse(l) as ProbeRecord);
    expect(printed.map((x) => [x.check, x.success, x.error])).toEqual([
      ['listFlows', false, 'CONNECTION_REFUSED'],
      ['getFlow', false, 'CONNECTION_REFUSED'],
    ]);
    expect((await readHistory(join(cwd, 'h'))).records).toEqual(printed);
    expect(`${r.out}${r.err}${historyText(join(cwd, 'h'))}`).not.toContain(token);
  });

  it('--once pushes the probe metrics to a Pushgateway', async () => {
    const cwd = tempDir();
    const pushes: { method?: string; url?: string; body: string }[] = [];
    const gw = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        pushes.push({ method: req.method, url: req.url, body });
        res.writeHead(200).end();
      });
    });
    servers.push(gw);
    await new Promise<void>((r) => gw.listen(0, '127.0.0.1', () => r()));
    const url = `http://127.0.0.1:${(gw.address() as AddressInfo).port}`;
    const r = await cli(['probe', '--once', '--history', 'h', '--checks', 'listFlows', '--pushgateway', url, '--quiet'], cwd);
    expect(r.code).toBe(0);
    expect(pushes).toHaveLength(1);
    // The embedded service is a target of its own name, in the group and on every series.
    expect(pushes[0]).toMatchObject({ method: 'PUT', url: '/metrics/job/flowgauge_probe/target/reference-service' });
    expect(pushes[0]?.body).toContain('flowgauge_probe_success{target="reference-service",check="listFlows"} 1');
  });

  it('--once with a Pushgateway that accepts and never answers: exit 0, a warning naming the group, the push given up and let go', async () => {
    const cwd = tempDir();
    const silent = await startSilentServer();
    try {
      const running = cli(['probe', '--once', '--history', 'h', '--checks', 'listFlows', '--pushgateway', silent.url, '--target-name', 'api', '--quiet'], cwd);
      const pushedAt = await silent.firstRequest();
      const r = await running;
      const tookMs = performance.now() - pushedAt;
      expect(r.code, r.err).toBe(0);
      expect(r.err).toBe(`flowgauge: warning: the probe metrics were not delivered to ${silent.url}/metrics/job/flowgauge_probe/target/api (no answer within 1 s); the history has the records, and the next push carries their totals\n`);
      // Its connection let go before the command returned: nothing of it holds the process.
      expect(silent.closedByClient()).toBe(silent.connections());
      // One bounded attempt of 1 s; the push's ordinary 10 s timeout would not fit in this generous bound.
      expect(tookMs).toBeLessThan(8000);
      expect((await readHistory(join(cwd, 'h'))).records).toHaveLength(1);
    } finally {
      await silent.close();
    }
  });

  it("--once against a web server's 404 page: every check recorded as failed, and exit 76 (the address is wrong: the prober, not the target)", async () => {
    const cwd = tempDir();
    const page = '<!doctype html><html><body><h1>404 Not Found</h1></body></html>';
    const web = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(404, { 'content-type': 'text/html' }).end(page));
    });
    servers.push(web);
    await new Promise<void>((r) => web.listen(0, '127.0.0.1', () => r()));
    const base = `http://127.0.0.1:${(web.address() as AddressInfo).port}/wrong/v1`;
    const r = await cli(['probe', '--once', '--history', 'h', '--base-url', base, '--token', 't0k3n', '--json'], cwd);
    expect(r.code, r.err).toBe(76);
    expect(r.err).toContain("every check answered 404 with a page that is not the service's error body: this is not the interface; check the path of --base-url");
    expect(r.err).not.toContain('checks succeeded');
    // Still what happened, in the history: the outage the probe saw is not hidden.
    const printed = r.out.trim().split('\n').map((l) => JSON.parse(l) as ProbeRecord);
    expect(printed.map((p) => [p.success, p.status])).toEqual(printed.map(() => [false, 404]));
    expect((await readHistory(join(cwd, 'h'))).records).toEqual(printed);
  });

  it('two probers of two targets push two groups (with --push-label), never replacing each other', async () => {
    const cwd = tempDir();
    const pushes: { url?: string; body: string }[] = [];
    const gw = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        pushes.push({ url: req.url, body });
        res.writeHead(200).end();
      });
    });
    servers.push(gw);
    await new Promise<void>((r) => gw.listen(0, '127.0.0.1', () => r()));
    const url = `http://127.0.0.1:${(gw.address() as AddressInfo).port}`;
    const a = await cli(['probe', '--once', '--history', 'a', '--checks', 'listFlows', '--pushgateway', url, '--target-name', 'staging', '--push-label', 'region=eu', '--quiet'], cwd);
    const b = await cli(['probe', '--once', '--history', 'b', '--checks', 'listFlows', '--pushgateway', url, '--target-name', 'production', '--push-label', 'region=eu', '--quiet'], cwd);
    expect([a.code, b.code], `${a.err}${b.err}`).toEqual([0, 0]);
    expect(pushes.map((p) => p.url)).toEqual(['/metrics/job/flowgauge_probe/target/staging/region/eu', '/metrics/job/flowgauge_probe/target/production/region/eu']);
    expect(pushes[1]?.body).toContain('flowgauge_probe_total{target="production",check="listFlows",result="success"} 1');
    const records = (await readHistory(join(cwd, 'a'))).records;
    expect(records.map((r) => r.target)).toEqual(['staging']);
    for (const bad of [['--target-name', 'https://api.example.com/v1'], ['--target-name', 'a b'], ['--push-label', 'target=x', '--pushgateway', url], ['--push-label', 'nope'], ['--push-label', 'region=eu']]) {
      const r = await cli(['probe', '--once', '--history', 'c', ...bad], cwd);
      expect(r.code, bad.join(' ')).toBe(2);
      expect(r.err, bad.join(' ')).toMatch(/--target-name|--push-label/);
    }
  });

  it('as a daemon runs whole rounds until --duration ends, and every printed record is in the history', async () => {
    const cwd = tempDir();
    const r = await cli(['probe', '--interval', '1s', '--duration', '1500ms', '--checks', 'listFlows,getFlow', '--history', 'h', '--json', '--metrics-port', '0'], cwd);
    expect(r.code).toBe(0);
    const printed = r.out.trim().split('\n').map((l) => JSON.parse(l) as ProbeRecord);
    const roundsSeen = new Set(printed.map((x) => x.round));
    expect(roundsSeen.size).toBeGreaterThanOrEqual(2);
    expect(printed).toHaveLength(roundsSeen.size * 2);
    expect((await readHistory(join(cwd, 'h'))).records).toEqual(printed);
    expect(r.err).toMatch(/Prometheus metrics at http:\/\/127\.0\.0\.1:\d+\/metrics/);
    expect(r.err).toMatch(new RegExp(`stopped after ${roundsSeen.size} rounds`));
  });

  it('on SIGTERM finishes the round in flight, flushes the history and exits 0', async () => {
    const cwd = tempDir();
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', join(ROOT, 'test/probe/fixtures/probe-cli.ts'), '--interval', '1s', '--checks', 'listFlows,stream', '--history', join(cwd, 'h'), '--json'],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    let err = '';
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
      // Signal once a few rounds have been printed; the stream check of the next one is likely in flight.
      if (out.split('\n').length > 6 && child.signalCode === null && !child.killed) child.kill('SIGTERM');
    });
    expect(await exited).toBe(0);
    expect(err).toMatch(/SIGTERM: finishing the current round/);
    const printed = out.trim().split('\n').map((l) => JSON.parse(l) as ProbeRecord);
    // Whole rounds only, every one of them on disk.
    expect(printed.length % 2).toBe(0);
    expect((await readHistory(join(cwd, 'h'))).records).toEqual(printed);
  });

  it('rejects bad flags with exit 2', async () => {
    const cwd = tempDir();
    const bad = async (args: string[], message: RegExp) => expect(await cli(['probe', '--once', ...args], cwd)).toMatchObject({ code: 2, err: expect.stringMatching(message) });
    await bad(['--checks', 'listFlows,nope'], /unknown nope/);
    await bad(['--interval', 'soon'], /--interval "soon"/);
    await bad(['--interval', '100ms'], /--interval "100ms" is too short: at least 1s between rounds/);
    await bad(['--failures-to-open', '0'], /--failures-to-open/);
    await bad(['--ca', 'missing.pem'], /--ca missing\.pem: cannot read it \(ENOENT\)/);
    // Nothing was probed, so no history was started.
    expect(readdirSync(cwd)).toEqual([]);
  });
});

describe('flowgauge slo status', () => {
  const AT = '2026-11-22T12:00:00.000Z';
  const atMs = Date.parse(AT);

  /** 1000 one-minute rounds of two checks ending at AT, in the writer's file layout (without 2000 fsyncs). */
  function writeHistory(dir: string, failedRounds: readonly number[]): void {
    const recs = rounds(atMs - 1000 * 60_000, 1000, ['listFlows', 'run'], (i, c) => c === 'run' && failedRounds.includes(i));
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `probe-${AT.slice(0, 10)}.jsonl`), recs.map((r) => `${JSON.stringify(r)}\n`).join(''));
  }

  it('exits 0 within the objective and prints the table', async () => {
    const cwd = tempDir();
    writeHistory(join(cwd, '.probe-history'), [500]);
    const r = await cli(['slo', 'status', '--at', AT], cwd);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/overall\s+1000\s+99\.900 %/);
    expect(r.out).toContain('Within objective');
  });

  it('exits 1 when the objective is missed, with --json and --html forms', async () => {
    const cwd = tempDir();
    writeHistory(join(cwd, 'h'), [1, 2, 3, 4]);
    const json = await cli(['slo', 'status', '--history', 'h', '--at', AT, '--json'], cwd);
    expect(json.code).toBe(1);
    const status = JSON.parse(json.out);
    expect(status).toMatchObject({ schema: 'flowgauge/slo-status@1', withinObjective: false, objective: 0.999 });
    expect(status.overall).toMatchObject({ downMinutes: 4, budgetLeftMinutes: 39.2, probes: 1000 });
    expect(status.checks.find((c: { name: string }) => c.name === 'run').incidents).toHaveLength(1);
    // A looser objective is met.
    expect((await cli(['slo', 'status', '--history', 'h', '--at', AT, '--objective', '99%'], cwd)).code).toBe(0);
    const html = await cli(['slo', 'status', '--history', 'h', '--at', AT, '--html', '--out', 'site/status.html'], cwd);
    expect(html.code).toBe(1);
    expect(readFileSync(join(cwd, 'site/status.html'), 'utf8')).toMatch(/^<!doctype html>[\s\S]*Objective missed/);
  });

  it('exits 2 for a missing history or bad flags', async () => {
    const cwd = tempDir();
    const missing = await cli(['slo', 'status', '--history', 'nowhere'], cwd);
    expect(missing).toMatchObject({ code: 2, err: expect.stringMatching(/no probe history/) });
    writeHistory(join(cwd, 'h'), []);
    expect(await cli(['slo', 'status', '--history', 'h', '--window', 'forever'], cwd)).toMatchObject({ code: 2, err: expect.stringMatching(/--window/) });
    expect(await cli(['slo', 'status', '--history', 'h', '--objective', '120'], cwd)).toMatchObject({ code: 2, err: expect.stringMatching(/--objective/) });
    expect(await cli(['slo', 'status', '--history', 'h', '--json', '--html'], cwd)).toMatchObject({ code: 2, err: expect.stringMatching(/mutually exclusive/) });
  });
});
