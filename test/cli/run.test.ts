/** `flowgauge run` through `main`, in-process: exit codes, messages, files written. */
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { startReferenceService, type ReferenceService } from '../../src/target/index.js';
import type { Report } from '../../src/report/index.js';
import { parseExposition, sumOf } from '../export/helpers/exposition.js';

let dir: string;
let service: ReferenceService;
const SECRET = 'fg_cli_secret_token_0123456789';

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fg-cli-run-'));
  service = await startReferenceService({ latency: 'none', tokens: { [SECRET]: { account: 'acct_b', tier: 'pro' } } });
});
afterAll(async () => {
  await service.close();
  rmSync(dir, { recursive: true, force: true });
});

function scenarioFile(name: string, body: Record<string, unknown>): string {
  const path = join(dir, `${name}.json`);
  writeFileSync(path, JSON.stringify(body));
  return path;
}

const quick = (thresholds: Record<string, string>): Record<string, unknown> => ({
  name: 'cli-quick',
  tier: 'pro',
  load: { executor: 'constant-arrival-rate', rate: '40/s', duration: '500ms' },
  mix: [{ op: 'listFlows', weight: 1 }],
  thresholds,
});

describe('flowgauge run', () => {
  it('exits 0 when every threshold passes, writes report.json and report.md, never prints the token', async () => {
    const io = memoryIo({ cwd: dir });
    const out = join(dir, 'pass');
    const code = await main(
      ['run', scenarioFile('pass', quick({ availability: '>=99%' })), '--base-url', service.baseUrl, '--token', SECRET, '--out', out],
      io,
    );
    expect(io.err()).toBe('');
    expect(code).toBe(0);
    const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as { load: { started: number }; passed: boolean };
    expect(report.load.started).toBe(20);
    expect(report.passed).toBe(true);
    expect(readFileSync(join(out, 'report.md'), 'utf8')).toMatch(/PASS/);
    expect(io.out()).toContain('PASS');
    for (const text of [io.out(), readFileSync(join(out, 'report.json'), 'utf8'), readFileSync(join(out, 'report.md'), 'utf8')]) {
      expect(text).not.toContain(SECRET);
    }
  });

  it('takes the token from FLOWGAUGE_TOKEN', async () => {
    const io = memoryIo({ cwd: dir, env: { FLOWGAUGE_TOKEN: SECRET } });
    const code = await main(['run', scenarioFile('env', quick({})), '--base-url', service.baseUrl, '--out', join(dir, 'env'), '--quiet'], io);
    expect(code).toBe(0);
  });

  it('takes k6 habits: -d for the duration and -e NAME=VALUE for ${NAME} in a YAML scenario', async () => {
    const yaml = join(dir, 'env-vars.yaml');
    writeFileSync(yaml, 'name: env-vars\ntier: pro\nload: { rate: "${RATE}", duration: 1m }\nmix: [ { op: listFlows } ]\n');
    const io = memoryIo({ cwd: dir });
    const out = join(dir, 'env-vars');
    const code = await main(['run', yaml, '-d', '500ms', '-e', 'RATE=40/s', '--base-url', service.baseUrl, '--token', SECRET, '--out', out, '--quiet'], io);
    expect(io.err()).toBe('');
    expect(code).toBe(0);
    const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as { load: { started: number } };
    expect(report.load.started).toBe(20);
    const unset = memoryIo({ cwd: dir });
    expect(await main(['run', yaml, '-d', '500ms', '--base-url', service.baseUrl, '--token', SECRET, '--quiet'], unset)).toBe(2);
    expect(unset.err()).toContain('load.rate: ${RATE} is not set: give -e RATE=…');
  });

  it('exits 2 before any request when a threshold names an operation the mix never sends', async () => {
    const before = service.stats().requests;
    const io = memoryIo({ cwd: dir });
    const file = scenarioFile('absent-op', quick({ 'getHistory.latency.p99': '<1s' }));
    const code = await main(['run', file, '--base-url', service.baseUrl, '--token', SECRET, '--out', join(dir, 'absent-op')], io);
    expect(code).toBe(2);
    expect(io.err()).toContain('getHistory is not in the mix, so this would never be observed; the mix sends listFlows');
    expect(service.stats().requests).toBe(before);
  });

  it('exits 1 when a threshold fails', async () => {
    const io = memoryIo({ cwd: dir });
    const code = await main(
      ['run', scenarioFile('fail', quick({ 'listFlows.latency.p50': '<1us' })), '--base-url', service.baseUrl, '--token', SECRET, '--out', join(dir, 'fail')],
      io,
    );
    expect(code).toBe(1);
    expect(io.out()).toContain('FAIL');
  });

  it('exits 2 with every problem of an invalid scenario named by its path', async () => {
    const io = memoryIo({ cwd: dir });
    const bad = scenarioFile('bad', { name: 'bad', tier: 'gold', load: { rate: 'fast', duration: '1s' }, mix: [{ op: 'runn', weight: 0 }] });
    const code = await main(['run', bad], io);
    expect(code).toBe(2);
    expect(io.err()).toMatch(/tier/);
    expect(io.err()).toMatch(/load\.rate/);
    expect(io.err()).toMatch(/mix\[0\]\.op/);
    expect(io.err()).toMatch(/mix\[0\]\.weight/);
  });

  it('exits 2 for a bad threshold expression before sending any request', async () => {
    const io = memoryIo({ cwd: dir });
    const code = await main(['run', scenarioFile('badthr', quick({ 'run.latency.p99': 'fast' })), '--base-url', service.baseUrl, '--token', SECRET], io);
    expect(code).toBe(2);
    expect(io.err()).toContain('run.latency.p99');
  });

  it('exits 2 for a missing scenario, a bad duration, a bad shard, an unknown flag, and a real target without a token', async () => {
    const cases: [string[], RegExp][] = [
      [['run', 'no-such-scenario'], /no file or ready scenario "no-such-scenario"/],
      [['run', 'smoke', '--duration', 'soon'], /--duration "soon"/],
      [['run', 'smoke', '--shard', '0/3'], /--shard/],
      [['run', 'smoke', '--bogus'], /bogus/i],
      [['run', 'smoke', '--base-url', service.baseUrl], /token/],
      [['run', 'smoke', '--base-url', 'not a url', '--token', 'x'], /--base-url/],
    ];
    for (const [argv, message] of cases) {
      const io = memoryIo({ cwd: dir });
      expect(await main(argv, io), argv.join(' ')).toBe(2);
      expect(io.err(), argv.join(' ')).toMatch(message);
    }
  });

  it('exits 3 when the target cannot be reached at all', async () => {
    const io = memoryIo({ cwd: dir });
    const code = await main(['run', scenarioFile('down', quick({})), '--base-url', 'http://127.0.0.1:1/v1', '--token', SECRET, '--out', join(dir, 'down')], io);
    expect(code).toBe(3);
    expect(io.err()).toMatch(/could not be reached/);
    expect(io.err()).not.toContain(SECRET);
    expect(existsSync(join(dir, 'down', 'report.json'))).toBe(false);
  });

  it('runs a ready scenario against the embedded service when no --base-url is given', async () => {
    const io = memoryIo({ cwd: dir });
    const code = await main(['run', 'smoke', '--duration', '1s', '--out', join(dir, 'smoke')], io);
    expect(io.out()).toContain('embedded reference service');
    expect(code).toBe(0);
    expect(existsSync(join(dir, 'smoke', 'report.json'))).toBe(true);
  });

  it('pushes metrics to a Pushgateway at the end and exports spans over OTLP, without the token', async () => {
    const received: { method: string; url: string; body: string }[] = [];
    const sink: Server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        received.push({ method: req.method ?? '', url: req.url ?? '', body });
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((r) => sink.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(sink.address() as { port: number }).port}`;
    try {
      const io = memoryIo({ cwd: dir });
      const code = await main(
        [
          'run', scenarioFile('push', quick({})), '--base-url', service.baseUrl, '--token', SECRET, '--out', join(dir, 'push'),
          '--pushgateway', base, '--otel', `${base}/v1/traces`, '--shard', '1/1', '--target-name', 'staging',
        ],
        io,
      );
      expect(io.err()).toBe('');
      expect(code).toBe(0);
      const push = received.find((r) => r.method === 'PUT' && r.url.startsWith('/metrics/job/flowgauge/'));
      // The target in the group and on every series: runs against staging and production stay apart.
      expect(push?.url).toMatch(/\/instance\/[^/]+\/target\/staging\/shard\/1$/);
      expect(push?.body).toMatch(/flowgauge_requests_total\{[^}]*operation="listFlows"[^}]*target="staging"/);
      const pushed = parseExposition(push?.body ?? '').filter((x) => x.name.startsWith('flowgauge_'));
      expect(pushed.filter((x) => x.labels.target !== 'staging')).toEqual([]);
      // Scheduled starts are counted (they once stayed at 0): started plus dropped, as the report says.
      const pushedReport = JSON.parse(readFileSync(join(dir, 'push', 'report.json'), 'utf8')) as Report;
      expect(sumOf(parseExposition(push?.body ?? ''), 'flowgauge_scheduled_total')).toBe(pushedReport.load.started + pushedReport.load.dropped);
      expect(pushedReport.load.started).toBeGreaterThan(0);
      const spans = received.filter((r) => r.method === 'POST' && r.url === '/v1/traces');
      expect(spans.length).toBeGreaterThan(0);
      expect(spans.map((s) => s.body).join('')).toContain('flowgauge.operation');
      for (const r of received) expect(r.body + r.url).not.toContain(SECRET);
    } finally {
      await new Promise<void>((r) => sink.close(() => r()));
    }
  });
});

describe('flowgauge run of a plan whose every scenario names its own tokenEnv', () => {
  const plan = {
    name: 'own-tokens',
    scenarios: {
      a: { tier: 'pro', tokenEnv: 'FG_OWN_A_TOKEN', load: { rate: '20/s', duration: '300ms' }, mix: [{ op: 'listFlows' }] },
      b: { tier: 'pro', tokenEnv: 'FG_OWN_B_TOKEN', load: { rate: '20/s', duration: '300ms' }, mix: [{ op: 'listFlows' }] },
    },
    thresholds: { availability: '>=99%' },
  };

  it('needs no --token against a real --base-url: each scenario sends its own', async () => {
    const io = memoryIo({ cwd: dir, env: { FG_OWN_A_TOKEN: SECRET, FG_OWN_B_TOKEN: service.tokens.pro } });
    const out = join(dir, 'own-tokens');
    const code = await main(['run', scenarioFile('own-tokens', plan), '--base-url', service.baseUrl, '--out', out, '--quiet', '--no-audit'], io);
    expect(io.err()).toBe('');
    expect(code).toBe(0);
    const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as Report;
    expect(report.scenarios?.a?.ops.listFlows?.good).toBe(6);
    expect(report.scenarios?.b?.ops.listFlows?.good).toBe(6);
    expect(io.out() + io.err()).not.toContain(SECRET);
  });

  it('still names the variable that is not set, and a plan with a scenario without one still needs --token', async () => {
    const unset = memoryIo({ cwd: dir, env: { FG_OWN_A_TOKEN: SECRET } });
    expect(await main(['run', scenarioFile('own-tokens-unset', plan), '--base-url', service.baseUrl, '--quiet'], unset)).toBe(2);
    expect(unset.err()).toContain('FG_OWN_B_TOKEN');
    const partial = { ...plan, scenarios: { ...plan.scenarios, b: { ...plan.scenarios.b, tokenEnv: undefined } } };
    const io = memoryIo({ cwd: dir, env: { FG_OWN_A_TOKEN: SECRET } });
    expect(await main(['run', scenarioFile('own-tokens-partial', partial), '--base-url', service.baseUrl, '--quiet'], io)).toBe(2);
    expect(io.err()).toContain('--token');
  });
});
