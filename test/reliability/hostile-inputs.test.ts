/**
 * Hostile input files and paths given to every command: scenario files that never settle, reject,
 * throw, are huge, nested millions deep, carry prototype keys or giant strings; report files that
 * are FIFOs, devices, nested millions deep or carry a giant field; an `--out` that cannot be
 * made; the token from a file or stdin. Each must end promptly with exit 2 and a message naming
 * the file, what is wrong and the limit — never a hang, a crash, "internal error" or the token.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { startReferenceService, type ReferenceService } from '../../src/target/index.js';
import { fixtureReport } from '../report/fixture.js';
import { killIfRunning, spawnCli, until, type CliProcess } from './cli-process.js';

const TOKEN = 'fg_hostile_inputs_tok3n';
const OK = { name: 'ok', tier: 'pro', load: { rate: '5/s', duration: '200ms' }, mix: [{ op: 'listFlows' }] };

let dir: string;
let service: ReferenceService;
let cli: CliProcess | undefined;

const write = (name: string, text: string): string => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fg-hostile-inputs-'));
  service = await startReferenceService({ latency: 'none', tokens: { [TOKEN]: { account: 'acct_b', tier: 'pro' } } });
  write('ok.json', JSON.stringify(OK));
  write('report.json', JSON.stringify(fixtureReport()));
  execFileSync('mkfifo', [join(dir, 'fifo.json')]);
  execFileSync('mkfifo', [join(dir, 'fifo-token')]);
});
afterAll(async () => {
  await killIfRunning(cli);
  await service.close();
  rmSync(dir, { recursive: true, force: true });
});

async function run(argv: readonly string[], stdin?: string): Promise<{ code: number; err: string; out: string }> {
  const io = memoryIo({ cwd: dir, ...(stdin !== undefined ? { stdin } : {}) });
  const code = await main(argv, io);
  return { code, err: io.err(), out: io.out() };
}

/** Exit 2, every pattern in stderr, no stack trace, no "internal error", and a message of reasonable size. */
function expectRefused(r: { code: number; err: string; out: string }, patterns: readonly RegExp[]): void {
  expect(r.code, r.err.slice(0, 2000)).toBe(2);
  for (const p of patterns) expect(r.err).toMatch(p);
  expect(r.err).not.toMatch(/internal error|\n\s+at |call stack|Invalid string length/);
  expect(r.err.length + r.out.length).toBeLessThan(4000);
}

describe('scenario files', () => {
  it('a rejected default export: exit 2 with the rejection and its file:line, not "internal error"', async () => {
    write('rejects.ts', "const why: string = 'nope, rejected';\nexport default Promise.reject(new Error(why));\n");
    expectRefused(await run(['run', 'rejects.ts']), [/rejects\.ts: its export rejected: nope, rejected \(at \S*rejects\.ts:2:\d+\)/]);
  });

  it('a .ts scenario that throws at top level: the error and file:line of the source', async () => {
    write('throws.ts', "type T = { a: number };\nconst t: T = { a: 1 };\nif (t.a) throw new Error('boom at import');\nexport default {};\n");
    expectRefused(await run(['run', 'throws.ts']), [/throws\.ts: could not load: boom at import \(at \S*throws\.ts:3:\d+\)/]);
  });

  it('a module that leaves a live timer behind does not keep the process alive after its exit 2', async () => {
    write('timer.ts', "setInterval(() => {}, 1000);\nexport default { name: 'Not Valid' };\n");
    cli = spawnCli(['run', 'timer.ts'], { cwd: dir });
    const p = cli;
    // A safety net, not a timing assertion: the process must end on its own.
    await until(() => p.hasExited(), 'the CLI to exit despite the timer', 60_000, 50);
    expect((await p.exited).code, p.stderr()).toBe(2);
    expect(p.stderr()).toMatch(/name: must use only lower-case letters/);
  });

  it('a 1 GB scenario file is refused from its size', async () => {
    truncateSync(write('huge.yaml', ''), 1024 ** 3);
    expectRefused(await run(['run', 'huge.yaml']), [/huge\.yaml: scenario file is 1073741824 bytes \(1 GiB\); the limit is 16 MiB/]);
  });

  it('JSON and YAML nested 2,000,000 deep: exit 2 naming the depth limit', async () => {
    write('deep.json', `{"name":"ok","mix":${'['.repeat(2_000_000)}${']'.repeat(2_000_000)}}`);
    expectRefused(await run(['run', 'deep.json']), [/deep\.json: is nested deeper than 64 levels/]);
    write('deep.yaml', `name: ok\nmix: ${'['.repeat(2_000_000)}${']'.repeat(2_000_000)}\n`);
    expectRefused(await run(['run', 'deep.yaml']), [/deep\.yaml: is nested deeper than 64 levels/]);
  });

  it('__proto__ in a JSON scenario is refused with its path, not honoured as inherited fields', async () => {
    write('proto.json', JSON.stringify(OK).replace('"tier":"pro",', '"__proto__":{"tier":"pro"},'));
    expectRefused(await run(['run', 'proto.json']), [/__proto__: the key "__proto__" is not allowed/]);
  });

  it('a 2 MiB scenario name: exit 2 naming the field and the limit, the name not printed', async () => {
    write('long-name.json', JSON.stringify({ ...OK, name: 'a'.repeat(2 * 1024 * 1024) }));
    expectRefused(await run(['run', 'long-name.json']), [/name: is a string of 2097152 characters; the limit is 1048576/]);
  });

  it('a FIFO as the scenario is refused without being opened', async () => {
    expectRefused(await run(['run', 'fifo.json']), [/fifo\.json: is a FIFO \(named pipe\); give a regular file/]);
  });
});

describe('report files given to report, merge and compare', () => {
  const commands = (file: string): string[][] => [
    ['report', file],
    ['merge', file, 'report.json', '--out', 'merged/m.json'],
    ['compare', 'report.json', file],
  ];

  it('a FIFO, a device or a directory: exit 2 at once, for every reader', async () => {
    for (const [file, what] of [
      ['fifo.json', /fifo\.json: is a FIFO \(named pipe\); give a regular file/],
      ['/dev/zero', /\/dev\/zero: is a device; give a regular file/],
      ['.', /\.: cannot read the file \(a directory/],
    ] as const) {
      for (const argv of commands(file)) expectRefused(await run(argv), [what]);
    }
  }, 15_000);

  it('a report nested 2,000,000 deep: exit 2 naming the limit, not a stack overflow', async () => {
    write('deep-report.json', `{"schema":"flowgauge/report@1","x":${'['.repeat(2_000_000)}${']'.repeat(2_000_000)}}`);
    for (const argv of commands('deep-report.json')) expectRefused(await run(argv), [/deep-report\.json: nested deeper than 64 levels/]);
  });

  it('a report with a 2 MiB field is refused naming it, not printed', async () => {
    write('big-field.json', JSON.stringify({ ...fixtureReport(), scenario: 'x'.repeat(2 * 1024 * 1024) }));
    for (const argv of commands('big-field.json')) expectRefused(await run(argv), [/big-field\.json: not a flowgauge\/report@1 report: scenario is a string of 2097152 characters; the limit is 1048576/]);
  });

  it('__proto__ in a report is refused with its path', async () => {
    write('proto-report.json', JSON.stringify(fixtureReport()).replace('"ops":{', '"ops":{"__proto__":{},'));
    expectRefused(await run(['report', 'proto-report.json']), [/proto-report\.json: not a flowgauge\/report@1 report: ops\.__proto__ the key "__proto__" is not allowed/]);
  });
});

describe('--out that cannot be used is refused before the run', () => {
  it.each([
    [['run', 'ok.json', '--out', '/proc/1/x'], /cannot write reports to \/proc\/1\/x \(its parent does not take new directories: \/proc\/1\/x\)/],
    [['run', 'ok.json', '--out', '/proc/1/x/y/z'], /cannot write reports to \/proc\/1\/x\/y\/z/],
    [['run', 'ok.json', '--out', 'ok.json/sub'], /cannot write reports to \S*ok\.json\/sub \(a file is in the way: \S*ok\.json\)/],
    [['conformance', '--out', '/proc/1/x'], /cannot write reports to \/proc\/1\/x/],
    [['report', 'report.json', '--out', '/proc/1/x/r.html'], /cannot write files to \/proc\/1\/x/],
  ])('%j', async (argv, message) => {
    const before = service.stats().requests;
    expectRefused(await run([...argv, '--base-url', service.baseUrl, '--token', TOKEN].slice(0, argv[0] === 'report' ? argv.length : undefined)), [message, /--out/]);
    expect(service.stats().requests).toBe(before);
  }, 15_000);
});

describe('--history that cannot be used is refused before the first probe', () => {
  it('probe --once --history /proc/1/x: exit 2 with the reason, no request sent', async () => {
    const before = service.stats().requests;
    expectRefused(await run(['probe', '--once', '--history', '/proc/1/x', '--base-url', service.baseUrl, '--token', TOKEN]), [
      /cannot write the probe history to \/proc\/1\/x \(its parent does not take new directories: \/proc\/1\/x\)/,
      /--history/,
    ]);
    expect(service.stats().requests).toBe(before);
  }, 15_000);
});

describe('the token from a file or stdin, never on the command line', () => {
  const target = (): string[] => ['run', 'ok.json', '--base-url', service.baseUrl, '--out', 'tok-out'];

  it('--token-file PATH and --token - (stdin) run like --token; the token is never printed', async () => {
    write('token.txt', `${TOKEN}\n`);
    const fromFile = await run([...target(), '--token-file', 'token.txt']);
    expect(fromFile.code, fromFile.err).toBe(0);
    const fromStdin = await run([...target(), '--token', '-'], `${TOKEN}\r\n`);
    expect(fromStdin.code, fromStdin.err).toBe(0);
    for (const r of [fromFile, fromStdin]) expect(r.err + r.out).not.toContain(TOKEN);
  });

  it('a --ca that is a FIFO is refused at once, by run and by probe (they read it the same way)', async () => {
    for (const argv of [['run', 'ok.json'], ['probe', '--once', '--history', 'ca-history']]) {
      expectRefused(await run([...argv, '--ca', 'fifo-token', '--base-url', service.baseUrl, '--token', TOKEN]), [/--ca fifo-token: is a FIFO \(named pipe\); give a regular file/]);
    }
  }, 15_000);

  it('a token file that is a FIFO, empty, of several lines, or given with --token: exit 2 without quoting it', async () => {
    write('empty-token', '\n');
    write('two-lines', `${TOKEN}\nsecond\n`);
    const cases: [string[], RegExp][] = [
      [['--token-file', 'fifo-token'], /--token-file fifo-token: is a FIFO \(named pipe\); give a regular file/],
      [['--token-file', 'empty-token'], /--token-file empty-token holds no token/],
      [['--token-file', 'two-lines'], /--token-file two-lines holds more than one line/],
      [['--token-file', 'missing-token'], /--token-file missing-token: no such file/],
      [['--token-file', 'two-lines', '--token', TOKEN], /give the token one way: --token or --token-file, not both/],
    ];
    for (const [flags, message] of cases) {
      const r = await run([...target(), ...flags]);
      expectRefused(r, [message]);
      expect(r.err).not.toContain(TOKEN);
    }
    expectRefused(await run([...target(), '--token', '-'], ''), [/--token - \(stdin\) holds no token/]);
  });
});
