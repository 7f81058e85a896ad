/**
 * Reachable live metrics and honest shards, through `main`: --metrics-host binds where asked and
 * the log says when the endpoint goes away; a shard says so in its progress and summary; shards
 * each against their own embedded service are warned, at the run and at the merge.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';

let dir: string;
let scenario: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'fg-cli-live-'));
  scenario = join(dir, 'quick.json');
  writeFileSync(scenario, JSON.stringify({ name: 'quick', tier: 'pro', load: { executor: 'constant-arrival-rate', rate: '20/s', duration: '1500ms' }, mix: [{ op: 'listFlows', weight: 1 }] }));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const plain = (s: string): string => s.replace(/\x1b\[[0-9;]*[A-Za-z]/g, '');

async function cli(argv: string[], isTTY = false): Promise<{ code: number; out: string; err: string }> {
  const io = memoryIo({ cwd: dir, isTTY });
  const code = await main(argv, io);
  return { code, out: plain(io.out()), err: io.err() };
}

describe('live metrics', () => {
  it('--metrics-host 0.0.0.0 binds every interface, and the log says when the endpoint closes', async () => {
    const r = await cli(['run', scenario, '--metrics-port', '0', '--metrics-host', '0.0.0.0', '--out', join(dir, 'm'), '--no-audit']);
    expect(r.code, r.err).toBe(0);
    const url = /Prometheus metrics at (http:\/\/0\.0\.0\.0:\d+\/metrics)\n/.exec(r.out)?.[1];
    expect(url).toBeDefined();
    expect(r.out).toContain(`Prometheus metrics at ${url} closed (the run ended)`);
  });

  it('a bad --metrics-host, or one without a port, is exit 2 naming the flag', async () => {
    expect(await cli(['run', scenario, '--metrics-port', '0', '--metrics-host', 'everywhere'])).toMatchObject({ code: 2, err: expect.stringMatching(/--metrics-host "everywhere" is not an IP address/) });
    expect(await cli(['run', scenario, '--metrics-host', '0.0.0.0'])).toMatchObject({ code: 2, err: expect.stringMatching(/--metrics-host needs --metrics-port/) });
    expect(await cli(['probe', '--once', '--metrics-host', '::'])).toMatchObject({ code: 2, err: expect.stringMatching(/--metrics-host needs --metrics-port/) });
  });
});

describe('shards', () => {
  it('a shard says so in its progress and summary; without --base-url it is warned, and so is the merge', async () => {
    const one = await cli(['run', scenario, '--shard', '1/2', '--out', join(dir, 's1'), '--no-audit'], true);
    expect(one.code, one.err).toBe(0);
    expect(one.out).toMatch(/shard 1\/2 {2}\s*\d+s\/\d+s/);
    expect(one.out).toMatch(/^flowgauge quick \(shard 1\/2\): PASS in /m);
    expect(one.err).toContain("shard 1/2 without --base-url runs against its own embedded service: merged, the 2 shards' figures describe 2 services, not one");
    const two = await cli(['run', scenario, '--shard', '2/2', '--out', join(dir, 's2'), '--no-audit', '--quiet']);
    expect(two.code, two.err).toBe(0);
    const merged = await cli(['merge', join(dir, 's1/report.json'), join(dir, 's2/report.json'), '-o', join(dir, 'merged.json')]);
    expect(merged.code, merged.err).toBe(0);
    expect(merged.err).toMatch(/2 of these shards ran against their own embedded service: the merged figures describe 2 services, not one/);
  });
});
