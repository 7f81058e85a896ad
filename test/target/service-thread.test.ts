/**
 * The reference service in a thread of its own (`startReferenceServiceThread`): it answers while
 * this thread is blocked, hides its tokens as the in-thread handle does, fails to start with the
 * errors the in-thread service throws, and `close()` ends it, even a thread that ignores it.
 */
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { inspect, promisify } from 'node:util';
import { threadId } from 'node:worker_threads';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createFakeClock } from '../../src/core/clock.js';
import { ConfigError, FlowgaugeError, InvalidArgumentError, ListenError } from '../../src/core/errors.js';
import { startReferenceService, startReferenceServiceThread, type ReferenceService, type ReferenceServiceThread } from '../../src/target/index.js';
import { call } from './helpers.js';

const ROOT = resolve(import.meta.dirname, '../..');
const dir = mkdtempSync(join(tmpdir(), 'fg-service-thread-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const open: (ReferenceService | ReferenceServiceThread)[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});
async function inThread(port = 0): Promise<ReferenceService> {
  const s = await startReferenceService({ port });
  open.push(s);
  return s;
}
async function ownThread(options: Parameters<typeof startReferenceServiceThread>[0] = {}): Promise<ReferenceServiceThread> {
  const s = await startReferenceServiceThread(options);
  open.push(s);
  return s;
}

/**
 * GET /flows by curl, with this thread blocked until curl is done (`execFileSync`): only a
 * service in another thread can answer it. The status curl saw, or undefined when it gave up.
 */
function blockedGet(s: { baseUrl: string; tokens: { pro: string } }, maxTimeS: number): number | undefined {
  try {
    const out = execFileSync('curl', ['-s', '-o', '/dev/null', '-w', '%{http_code}', '--max-time', String(maxTimeS), '-H', `Authorization: Bearer ${s.tokens.pro}`, `${s.baseUrl}/flows`], { encoding: 'utf8' });
    return Number(out);
  } catch {
    return undefined;
  }
}
const hasCurl = spawnSync('curl', ['--version']).status === 0;

describe('startReferenceServiceThread', () => {
  it('runs the service in another thread, which answers while this one is blocked', async ({ skip }) => {
    if (!hasCurl) {
      if (process.env.CI === 'true') throw new Error('curl is missing');
      console.warn('*** SKIPPING: curl is missing');
      return skip('curl is missing');
    }
    const s = await ownThread();
    expect(s.threadId).toBeGreaterThan(0);
    expect(s.threadId).not.toBe(threadId);
    // A guard only: the answer comes while this thread waits, whatever the machine's load.
    expect(blockedGet(s, 60)).toBe(200);
    // The same in this thread cannot answer: its event loop is the one that waits.
    const here = await inThread();
    expect(blockedGet(here, 1)).toBeUndefined();
  }, 120_000);

  it('serves the interface with the tokens it names, and never prints them', async () => {
    const s = await ownThread({ seed: 7 });
    const flows = await call(s.baseUrl, 'GET', '/flows', { token: s.tokens.pro });
    expect(flows.status).toBe(200);
    expect(flows.json.flows.length).toBeGreaterThan(0);
    expect(s.tokens).toEqual({});
    expect([s.tokens.free, s.tokens.pro, s.tokens.enterprise].every((t) => t.length > 0)).toBe(true);
    expect(s.adminToken).toMatch(/^fg_admin_/);
    expect(Object.keys(s)).not.toContain('tokens');
    expect(Object.keys(s)).not.toContain('adminToken');
    for (const shown of [inspect(s, { depth: 5, showHidden: false }), JSON.stringify(s), JSON.stringify({ target: s }), inspect(s.tokens), JSON.stringify(s.tokens)]) {
      for (const secret of [s.tokens.free, s.tokens.pro, s.tokens.enterprise, s.adminToken]) expect(shown).not.toContain(secret);
    }
    expect(JSON.parse(JSON.stringify(s))).toEqual({ service: 'flowgauge reference service', baseUrl: s.baseUrl, webhookHost: s.webhookHost, port: s.port, threadId: s.threadId });
  });

  it('fails on a port in use with the error the service in this thread throws', async () => {
    const taken = await inThread();
    const here = await startReferenceService({ port: taken.port }).then(
      () => undefined,
      (e: unknown) => e as ListenError,
    );
    const there = await startReferenceServiceThread({ port: taken.port }).then(
      (s) => {
        open.push(s);
        return undefined;
      },
      (e: unknown) => e as ListenError,
    );
    expect(here).toBeInstanceOf(ListenError);
    expect(there).toBeInstanceOf(ListenError);
    const fields = (e: ListenError | undefined) => ({ name: e?.name, code: e?.code, host: e?.host, port: e?.port, reason: e?.reason, message: e?.message, cause: (e?.cause as NodeJS.ErrnoException | undefined)?.code });
    expect(fields(here)?.reason).toBe('EADDRINUSE');
    expect(fields(there)).toEqual(fields(here));
  });

  it('refuses bad options with the ConfigError of the service in this thread, and options that cannot cross', async () => {
    const bad = { failureRate: 2, port: -1 };
    const here = await startReferenceService(bad).catch((e: unknown) => e);
    const there = await startReferenceServiceThread(bad).catch((e: unknown) => e);
    expect(here).toBeInstanceOf(ConfigError);
    expect(there).toBeInstanceOf(ConfigError);
    expect((there as ConfigError).issues).toEqual((here as ConfigError).issues);
    expect((there as ConfigError).code).toBe('FG_CONFIG_INVALID');

    const clock = await startReferenceServiceThread({ clock: createFakeClock() }).catch((e: unknown) => e);
    expect(clock).toBeInstanceOf(InvalidArgumentError);
    expect((clock as InvalidArgumentError).code).toBe('FG_INVALID_ARGUMENT');
    expect((clock as Error).message).toMatch(/clock option cannot cross to its own thread; start it in this thread \(startReferenceService\)/);
    const hook = await startReferenceServiceThread({ onRequest: () => undefined }).catch((e: unknown) => e);
    expect((hook as InvalidArgumentError).code).toBe('FG_INVALID_ARGUMENT');
    expect((hook as Error).message).toContain('onRequest');
  });

  it('close() ends the server: the port refuses connections after it', async () => {
    const s = await startReferenceServiceThread();
    expect((await call(s.baseUrl, 'GET', '/flows', { token: s.tokens.pro })).status).toBe(200);
    await s.close();
    await s.close(); // twice is once
    const after = await call(s.baseUrl, 'GET', '/flows', { token: s.tokens.pro }).catch((e: unknown) => e as Error & { cause?: { code?: string }; code?: string });
    expect(after).toBeInstanceOf(Error);
    const code = (after as { code?: string }).code ?? (after as { cause?: { code?: string } }).cause?.code;
    expect(code).toBe('ECONNREFUSED');
  });

  it('close() leaves nothing open: a process that started it ends by itself', async () => {
    const script = join(dir, 'close.mts');
    writeFileSync(
      script,
      [
        `import { startReferenceServiceThread } from ${JSON.stringify(pathToFileURL(join(ROOT, 'src/target/index.ts')).href)};`,
        'const s = await startReferenceServiceThread();',
        "const r = await fetch(`${s.baseUrl}/flows`, { headers: { authorization: `Bearer ${s.tokens.pro}` } });",
        'await r.text();',
        'await s.close();',
        "console.log('closed', r.status);",
        '',
      ].join('\n'),
    );
    // Were the thread, a socket or a timer left, the process would not end: the timeout only guards that.
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', script], { cwd: ROOT, timeout: 90_000 });
    expect(stdout.trim()).toBe('closed 200');
  }, 120_000);

  it('close() terminates a thread that does not end when asked', async () => {
    const entry = join(dir, 'deaf.mjs');
    writeFileSync(
      entry,
      [
        "import { parentPort } from 'node:worker_threads';",
        "parentPort.postMessage({ type: 'ready', baseUrl: 'http://127.0.0.1:9/v1', webhookHost: 'http://127.0.0.1:9', port: 9, adminToken: 'a', tokens: { free: 'f', pro: 'p', enterprise: 'e' } });",
        'parentPort.on("message", () => undefined);',
        'setInterval(() => undefined, 1000);',
        '',
      ].join('\n'),
    );
    const s = await startReferenceServiceThread({}, { entry: pathToFileURL(entry), closeWaitMs: 100 });
    // Resolves only once the thread has ended (here: terminated).
    await expect(s.close()).resolves.toBeUndefined();
  });

  it('a thread that cannot start is a typed error, not a hang', async () => {
    const entry = join(dir, 'broken.mjs');
    writeFileSync(entry, "throw new Error('no service here');\n");
    const e = await startReferenceServiceThread({}, { entry: pathToFileURL(entry) }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(FlowgaugeError);
    expect((e as FlowgaugeError).code).toBe('FG_INTERNAL');
    expect((e as Error).message).toContain('no service here');
  });
});
