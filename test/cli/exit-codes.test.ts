/** Exit codes through `main`: an internal error is 70 (never 1, a failed threshold), and FLOWGAUGE_BASE_URL names the target. */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../../src/cli/exit-codes.js';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { startReferenceService, type ReferenceService } from '../../src/target/index.js';

const SECRET = 'fg_exit_codes_token_0123456789';
let dir: string;
let service: ReferenceService;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fg-exit-codes-'));
  service = await startReferenceService({ latency: 'none', tokens: { [SECRET]: { account: 'acct_exit', tier: 'pro' } } });
});
afterAll(async () => {
  await service.close();
  rmSync(dir, { recursive: true, force: true });
});

function quick(name: string): string {
  const path = join(dir, `${name}.json`);
  writeFileSync(
    path,
    JSON.stringify({
      name,
      tier: 'pro',
      load: { executor: 'constant-arrival-rate', rate: '40/s', duration: '300ms' },
      mix: [{ op: 'listFlows', weight: 1 }],
      thresholds: { availability: '>=99%' },
    }),
  );
  return path;
}

/** An io whose stdout fails with a plain TypeError: the injected failure no command expects. */
function brokenStdout(env: Record<string, string> = {}) {
  const io = memoryIo({ cwd: dir, env });
  return {
    io,
    broken: {
      ...io,
      stdout: {
        write: (): never => {
          throw new TypeError('injected failure: stdout.write');
        },
      },
    },
  };
}

describe('exit codes', () => {
  it('reserves 70 (EX_SOFTWARE) for an internal error, apart from every other code', () => {
    expect(EXIT.INTERNAL).toBe(70);
    const codes = Object.values(EXIT);
    expect(new Set(codes).size).toBe(codes.length);
  });

  it('an internal error exits 70, not 1', async () => {
    const { io, broken } = brokenStdout();
    const code = await main(['schema', 'report'], broken);
    expect(code).toBe(70);
    expect(io.err()).toMatch(/internal error \(please report it\)/);
    expect(io.err()).toContain('injected failure');
  });

  it('an internal error after a passing run exits 70: it outranks the pass', async () => {
    const { io, broken } = brokenStdout({ FLOWGAUGE_TOKEN: SECRET });
    const code = await main(['run', quick('internal-after-pass'), '--base-url', service.baseUrl, '--out', join(dir, 'internal-after-pass')], broken);
    expect(code).toBe(70);
    expect(io.err()).toMatch(/internal error/);
  });

  it('documents 70 in --help', async () => {
    const io = memoryIo({ cwd: dir });
    await main(['--help'], io);
    expect(io.out()).toMatch(/70 internal error/);
  });

  it('gives a target of another protocol or shape 76 (EX_PROTOCOL), apart from unreachable (3), and documents it', async () => {
    expect(EXIT.PROTOCOL).toBe(76);
    expect(EXIT.UNREACHABLE).toBe(3);
    const io = memoryIo({ cwd: dir });
    await main(['--help'], io);
    expect(io.out()).toMatch(/76 the target answered in another protocol or shape/);
  });
});

describe('FLOWGAUGE_BASE_URL', () => {
  it('is the target when --base-url is absent', async () => {
    const io = memoryIo({ cwd: dir, env: { FLOWGAUGE_BASE_URL: service.baseUrl, FLOWGAUGE_TOKEN: SECRET } });
    const out = join(dir, 'env-base');
    const code = await main(['run', quick('env-base'), '--out', out, '--quiet'], io);
    expect(io.err()).toBe('');
    expect(code).toBe(0);
    const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as { target: { baseUrl: string; embedded: boolean } };
    expect(report.target).toEqual({ baseUrl: service.baseUrl, embedded: false });
    // The service saw the requests: they came with this account's token.
    expect(service.stats().requests).toBeGreaterThan(0);
  });

  it('loses to --base-url', async () => {
    const io = memoryIo({ cwd: dir, env: { FLOWGAUGE_BASE_URL: 'http://127.0.0.1:9/v1', FLOWGAUGE_TOKEN: SECRET } });
    const out = join(dir, 'flag-wins');
    const code = await main(['run', quick('flag-wins'), '--base-url', service.baseUrl, '--out', out, '--quiet'], io);
    expect(code).toBe(0);
    const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as { target: { baseUrl: string } };
    expect(report.target.baseUrl).toBe(service.baseUrl);
  });

  it('a bad value is bad input that names the variable', async () => {
    const io = memoryIo({ cwd: dir, env: { FLOWGAUGE_BASE_URL: 'ftp://example.com/v1', FLOWGAUGE_TOKEN: SECRET } });
    const code = await main(['run', quick('env-bad'), '--out', join(dir, 'env-bad'), '--quiet'], io);
    expect(code).toBe(2);
    expect(io.err()).toContain('FLOWGAUGE_BASE_URL');
  });
});
