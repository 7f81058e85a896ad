/**
 * Two small rows of the attack: a `--ca` that holds no certificate (a private key, anything
 * else) is exit 2 "not a certificate", for every command that takes it, before anything is
 * sent (before: accepted silently); and `conformance --deadline` bounds the whole command, its
 * start-up included, not only the battery (before: the command ended 8–10 s after its deadline
 * on a loaded machine: the battery's deadline began once the CLI had started).
 */
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { caBundleProblem } from '../../src/cli/ca-bundle.js';
import { runConformance } from '../../src/conformance/index.js';
import { killIfRunning, spawnCli, type CliProcess } from '../reliability/cli-process.js';
import { recordFigures } from '../reliability/figures.js';
import { waitBounded } from './bounded-child.js';

let dir: string;
let silent: Server;
const sockets = new Set<Socket>();
let child: CliProcess | undefined;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fg-ca-deadline-'));
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  writeFileSync(join(dir, 'key.pem'), privateKey.export({ type: 'pkcs8', format: 'pem' }));
  writeFileSync(join(dir, 'notes.txt'), 'this is not a certificate\n');
  writeFileSync(join(dir, 'broken.pem'), '-----BEGIN CERTIFICATE-----\nTUlJQm9vbXM=\n-----END CERTIFICATE-----\n');
  writeFileSync(join(dir, 'ok.json'), JSON.stringify({ name: 'ok', tier: 'pro', load: { rate: '1/s', duration: '1s' }, mix: [{ op: 'listFlows' }] }));
  // Reads every request and never answers.
  silent = createServer((s) => {
    sockets.add(s);
    s.on('data', () => undefined).on('error', () => undefined).on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
});
afterAll(async () => {
  await killIfRunning(child);
  for (const s of sockets) s.destroy();
  await new Promise((resolve) => silent.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

const base = (): string => `http://127.0.0.1:${(silent.address() as AddressInfo).port}/v1`;

describe('--ca that holds no certificate', () => {
  const COMMANDS: readonly (readonly string[])[] = [
    ['run', 'ok.json'],
    ['probe', '--once', '--checks', 'listFlows', '--history', 'h'],
    ['conformance'],
    ['capacity', 'listFlows'],
  ];
  for (const argv of COMMANDS) {
    it(`${argv[0]}: a private key is exit 2 "not a certificate", naming what it holds`, async () => {
      const io = memoryIo({ cwd: dir });
      const code = await main([...argv, '--base-url', base().replace('http:', 'https:'), '--token', 'fg_ca_t0ken', '--ca', 'key.pem'], io);
      expect(code, io.err()).toBe(2);
      expect(io.err()).toMatch(/--ca key\.pem: not a certificate: it holds a private key; give the PEM file of the CA certificate/);
      // Refused before a connection: the silent server never saw one.
      expect(sockets.size).toBe(0);
    }, 60_000);
  }

  it('a file with no PEM block, and a certificate block that does not parse, are refused too', () => {
    expect(caBundleProblem(readFileSync(join(dir, 'notes.txt'), 'utf8'))).toMatch(/^not a certificate: it holds no PEM block/);
    expect(caBundleProblem(readFileSync(join(dir, 'broken.pem'), 'utf8'))).toMatch(/^not a certificate: its certificate does not parse/);
    // A PEM block that never ends is no block: scanned once, line by line, never backtracking.
    expect(caBundleProblem(`-----BEGIN CERTIFICATE-----\n${'A'.repeat(64)}\n`.repeat(10_000))).toMatch(/holds no PEM block/);
  });
});

describe('conformance --deadline bounds the whole command', () => {
  it('against a target that never answers: the battery ends by the deadline counted from the process start', async () => {
    const deadlineS = 10;
    const out = join(dir, 'conf');
    const spawnedAtMs = Date.now();
    const t0 = performance.now();
    child = spawnCli(['conformance', '--base-url', base(), '--token', 'fg_deadline_t0ken', '--deadline', `${deadlineS}s`, '--out', out, '--quiet'], { cwd: dir });
    // The bound only guards a hang.
    const { code, signal, seconds } = await waitBounded(child, 120_000, t0);
    expect(signal, child.stderr()).toBeNull();
    // No answer at all: unreachable (3), the report written.
    expect(code, child.stderr()).toBe(3);
    const r = JSON.parse(readFileSync(join(out, 'conformance.json'), 'utf8')) as { endedAt: string; deadline?: { ms: number } };
    expect(r.deadline?.ms).toBe(deadlineS * 1000);
    // By construction, not by luck: the battery's deadline is the command's, less its start-up
    // and a tenth kept for writing, so its end lies inside the deadline from the spawn however
    // long the start-up took on a loaded machine. (Before, it lay the whole start-up beyond.)
    expect(Date.parse(r.endedAt) - spawnedAtMs).toBeLessThanOrEqual(deadlineS * 1000);
    recordFigures('conformanceDeadline', { deadlineS, processSeconds: Math.round(seconds * 10) / 10, batteryEndedAfterSpawnS: (Date.parse(r.endedAt) - spawnedAtMs) / 1000 });
  }, 150_000);

  it('a deadline the start-up already spent sends nothing and cuts every group, and says so instead of "unreachable"', async () => {
    const r = await runConformance({ baseUrl: base(), token: 'fg_deadline_t0ken', deadlineMs: 5000, spentMs: 5000 });
    expect(r.requests).toBe(0);
    expect(r.reachable).toBe(true);
    expect(r.passed).toBe(false);
    expect(r.deadline?.cut[0]).toBe('reachability');
    expect(r.deadline?.cut).toContain('rate limits');
    const stopped = new AbortController();
    stopped.abort();
    const s = await runConformance({ baseUrl: base(), token: 'fg_deadline_t0ken', signal: stopped.signal });
    expect(s.requests).toBe(0);
    expect(s.interrupted?.cut[0]).toBe('reachability');
    expect(s.deadline).toBeUndefined();
    expect(s.passed).toBe(false);
  });
});
