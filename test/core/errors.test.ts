/**
 * One error root: every error class of flowgauge extends `FlowgaugeError` and carries its code;
 * a server that cannot listen throws a `ListenError`; the CLI maps each code to its exit code
 * from one table. A `ConfigError`'s message is bounded however many problems it carries.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join, relative, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, createApiError, createTransportError, TransportError } from '../../src/api/errors.js';
import { UsageError } from '../../src/cli/context.js';
import { EXIT, EXIT_OF_CODE, exitCodeOf } from '../../src/cli/exit-codes.js';
import { ScenarioExitError } from '../../src/cli/exit-guard.js';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { ConfigError, FlowgaugeError, InvalidArgumentError, ListenError, MAX_SHOWN_ISSUES } from '../../src/core/errors.js';
import { startDashboardServer, startWebhookReceiver } from '../../src/export/index.js';
import { IterationInterrupted } from '../../src/run/vu.js';
import { IterationFailure } from '../../src/scenario/index.js';
import { ScanError } from '../../src/scenario/k6/js-scan.js';
import { startReferenceService } from '../../src/target/index.js';
import { createCodedError } from '../../src/transport/wire-errors.js';

const SRC = resolve(import.meta.dirname, '../../src');

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? tsFiles(p) : p.endsWith('.ts') ? [p] : [];
  });
}

let taken: Server;
let port: number;

beforeAll(async () => {
  taken = createServer();
  await new Promise<void>((r) => taken.listen(0, '127.0.0.1', r));
  port = (taken.address() as { port: number }).port;
});
afterAll(async () => {
  await new Promise<void>((r) => taken.close(() => r()));
});

describe('one error root', () => {
  it('no class in src/ extends a built-in error but FlowgaugeError itself', () => {
    const bad = tsFiles(SRC).flatMap((f) =>
      [...readFileSync(f, 'utf8').matchAll(/class (\w+)(?:<[^>]*>)? extends (\w*Error)\b/g)]
        .filter((m) => ['Error', 'TypeError', 'RangeError', 'SyntaxError'].includes(m[2] as string) && m[1] !== 'FlowgaugeError')
        .map((m) => `${relative(SRC, f)}: ${m[1]} extends ${m[2]}`),
    );
    expect(bad).toEqual([]);
  });

  it.each([
    ['ApiError', createApiError('RATE_LIMITED', 429, 'slow down', undefined, 'req_1'), ApiError, 'RATE_LIMITED'],
    ['TransportError', createTransportError('CONNECT_TIMEOUT', 'no answer'), TransportError, 'CONNECT_TIMEOUT'],
    ['a wire failure', createCodedError('FG_H1_CLOSED', 'closed'), FlowgaugeError, 'FG_H1_CLOSED'],
    ['UsageError', new UsageError('bad flag'), UsageError, 'FG_USAGE'],
    ['ConfigError', new ConfigError([{ path: 'a', message: 'b' }]), ConfigError, 'FG_CONFIG_INVALID'],
    ['InvalidArgumentError', new InvalidArgumentError('x'), InvalidArgumentError, 'FG_INVALID_ARGUMENT'],
    ['IterationFailure', new IterationFailure('failed on purpose'), IterationFailure, 'FG_ITERATION_FAILED'],
    ['IterationInterrupted', new IterationInterrupted(), IterationInterrupted, 'FG_ITERATION_INTERRUPTED'],
    ['ScanError (a k6 script read without running it)', new ScanError(3, 'unclosed'), ScanError, 'FG_SCRIPT_UNREADABLE'],
    ["ScenarioExitError (the scenario's own process.exit, guarded)", new ScenarioExitError(0, 'a.mjs:7:5'), ScenarioExitError, 'FG_SCENARIO_EXIT'],
  ] as const)('%s is a FlowgaugeError carrying its code', (_name, err, kind, code) => {
    expect(err).toBeInstanceOf(FlowgaugeError);
    expect(err).toBeInstanceOf(kind);
    expect(err.code).toBe(code);
  });

  it('the client errors keep their own fields beside the code', () => {
    const e = createApiError('NOT_FOUND', 404, 'no flow', { flow: 'f' }, 'req_2');
    expect([e.name, e.status, e.requestId, e.details]).toEqual(['ApiError', 404, 'req_2', { flow: 'f' }]);
    const t = createTransportError('CONNECTION_RESET', 'reset', 'ECONNRESET');
    expect([t.name, t.causeCode]).toEqual(['TransportError', 'ECONNRESET']);
  });
});

describe('a server that cannot listen throws ListenError', () => {
  const listenError = (e: unknown): boolean => e instanceof ListenError && e.code === 'FG_LISTEN_FAILED' && e.reason === 'EADDRINUSE' && e.port === port && e.host === '127.0.0.1';

  it('the reference service', async () => {
    await expect(startReferenceService({ port, host: '127.0.0.1' })).rejects.toSatisfy(listenError);
  });

  it('the live dashboard', async () => {
    await expect(startDashboardServer({ port, page: '<html></html>' })).rejects.toSatisfy(listenError);
  });

  it('the webhook receiver', async () => {
    await expect(startWebhookReceiver({ host: '127.0.0.1', port, secret: 'a-secret-of-some-length' })).rejects.toSatisfy(listenError);
  });

  it('flowgauge serve on a taken port exits 2 and names the address, no internal error', async () => {
    const io = memoryIo({ cwd: process.cwd() });
    const code = await main(['serve', '--port', String(port), '--duration', '1s'], io);
    expect(code).toBe(EXIT.BAD_INPUT);
    expect(io.err()).toContain(`cannot listen on 127.0.0.1:${port} (EADDRINUSE)`);
    expect(io.err()).not.toContain('internal error');
  });
});

describe('exit codes from one table', () => {
  it('maps each code to its exit code', () => {
    expect(exitCodeOf(new UsageError('x'))).toBe(EXIT.BAD_INPUT);
    expect(exitCodeOf(new ConfigError([]))).toBe(EXIT.BAD_INPUT);
    expect(exitCodeOf(new FlowgaugeError('FG_TARGET_UNREACHABLE', 'x'))).toBe(EXIT.UNREACHABLE);
    expect(exitCodeOf(new FlowgaugeError('FG_TARGET_PROTOCOL', 'x'))).toBe(EXIT.PROTOCOL);
    expect(exitCodeOf(new FlowgaugeError('FG_INTERRUPTED', 'x'))).toBe(EXIT.INTERRUPTED);
    expect(exitCodeOf(new FlowgaugeError('FG_INTERNAL', 'x'))).toBe(EXIT.INTERNAL);
    expect(exitCodeOf(new FlowgaugeError('FG_LISTEN_FAILED', 'x'))).toBe(EXIT.BAD_INPUT);
    expect(exitCodeOf(new ScanError(1, 'x'))).toBe(EXIT.BAD_INPUT);
    // A write that failed (a full disk): the user's setup to fix, as bad input is.
    expect(exitCodeOf(new FlowgaugeError('FG_OUTPUT_FAILED', 'could not write /x: no space left'))).toBe(EXIT.BAD_INPUT);
    // The scenario's own process.exit stops the run as a stop that no signal asked for.
    expect(exitCodeOf(new ScenarioExitError(0, ''))).toBe(EXIT.INTERRUPTED);
  });

  it('has no exit code for the client errors, which are data (one thrown is a bug)', () => {
    expect(exitCodeOf(createApiError('UNKNOWN', 500, 'x', undefined, undefined))).toBeUndefined();
    expect(exitCodeOf(createTransportError('TIMEOUT', 'x'))).toBeUndefined();
    // A code of the client's family that happens to share a key of the object prototype is not a table entry.
    expect(exitCodeOf(new FlowgaugeError('toString', 'x'))).toBeUndefined();
  });

  it('every exit code the table gives is a documented one', () => {
    const documented = new Set<number>(Object.values(EXIT));
    for (const [code, exit] of Object.entries(EXIT_OF_CODE)) expect(documented.has(exit), code).toBe(true);
  });
});

describe('ConfigError', () => {
  it('lists every problem up to the bound, then counts the rest; all stay in issues', () => {
    const issues = Array.from({ length: 100 }, (_, i) => ({ path: `thresholds.k${i}`, message: `bad key ${i}` }));
    const err = new ConfigError(issues, 'scenario "s" (s.json)');
    const lines = err.message.split('\n');
    expect(lines[0]).toBe('invalid scenario "s" (s.json) (100 problems):');
    expect(lines.slice(1, -1)).toEqual(issues.slice(0, MAX_SHOWN_ISSUES).map((i) => `  - ${i.path}: ${i.message}`));
    expect(lines.at(-1)).toBe(`  … and ${100 - MAX_SHOWN_ISSUES} more`);
    expect(err.issues).toHaveLength(100);
  });

  it('says an allowed list once, under the first problem that has it', () => {
    const long = 'a, b, c';
    const err = new ConfigError([
      { path: 'x', message: 'unknown "x"', allowed: long },
      { path: 'y', message: 'wrong type' },
      { path: 'z', message: 'unknown "z"', allowed: long },
      { path: 'w', message: 'unknown "w"', allowed: 'd, e' },
    ]);
    expect(err.message).toBe(['invalid configuration (4 problems):', '  - x: unknown "x"', '    allowed: a, b, c', '  - y: wrong type', '  - z: unknown "z"', '  - w: unknown "w"', '    allowed: d, e'].join('\n'));
  });

  it('a single problem reads as before', () => {
    expect(new ConfigError([{ path: '', message: 'must be an object' }], 'scenario').message).toBe('invalid scenario (1 problem):\n  - (root): must be an object');
  });
});
