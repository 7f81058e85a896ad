/**
 * Bad input to `flowgauge run`: every mistake gets the exit code DESIGN gives it (2 bad input,
 * 3 target unreachable) and a message that names the bad thing and says what is allowed, before
 * any traffic is sent. Runs `main` in-process; one case goes through the real binary to check
 * the process exit code.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { startReferenceService, type ReferenceService } from '../../src/target/index.js';
import { spawnCli } from './cli-process.js';
import { recordFigures } from './figures.js';

const TOKEN = 'fg_cli_input_token';
let dir: string;
let service: ReferenceService;

const OK = { name: 'ok', tier: 'pro', load: { rate: '5/s', duration: '200ms' }, mix: [{ op: 'listFlows' }] };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fg-cli-input-'));
  service = await startReferenceService({ latency: 'none', tokens: { [TOKEN]: { account: 'acct_b', tier: 'pro' } } });
  const files: Record<string, string> = {
    'ok.json': JSON.stringify(OK),
    'bad.json': '{ "name": "x", ',
    'bad.yaml': 'name: [\n  tier: pro\n',
    'throws.ts': "throw new Error('boom at import');\nexport default {};\n",
    'syntax.ts': 'export default { name: "x" \n',
    'no-export.ts': 'export const other = 1;\n',
    'unknown-keys.json': JSON.stringify({ ...OK, laod: OK.load, mix: [{ op: 'run', wieght: 1 }] }),
    'negatives.json': JSON.stringify({ ...OK, load: { rate: '-5/s', duration: '0s', maxInFlight: 0, gracefulStop: '-1s' }, mix: [{ op: 'run', weight: -1 }] }),
    'zero-concurrency.json': JSON.stringify({ ...OK, load: { executor: 'constant-concurrency', concurrency: 0, duration: '1s' } }),
    'bad-op.json': JSON.stringify({ ...OK, mix: [{ op: 'delete' }] }),
    'scenario.txt': JSON.stringify(OK),
    'a-file': '',
  };
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
});
afterAll(async () => {
  await service.close();
  rmSync(dir, { recursive: true, force: true });
});

async function run(argv: readonly string[]): Promise<{ code: number; err: string; out: string }> {
  const io = memoryIo({ cwd: dir });
  const code = await main(argv, io);
  return { code, err: io.err(), out: io.out() };
}

/** [argv, exit code, patterns the message must match (the bad thing, and what is allowed)]. */
type Case = readonly [string, readonly string[], number, readonly RegExp[]];

const target = (): string[] => ['--base-url', service.baseUrl, '--token', TOKEN];

const CASES = (): readonly Case[] => [
  ['unknown flag', ['run', 'ok.json', '--bogus'], 2, [/unknown flag --bogus/, /flowgauge --help/]],
  ['unknown command', ['runn', 'ok.json'], 2, [/unknown command "runn": did you mean run\?/]],
  ['no command', [], 2, [/name a command/]],
  ['no scenario', ['run'], 2, [/flowgauge --help/]],
  ['duration not a duration', ['run', 'ok.json', '--duration', 'soon'], 2, [/--duration "soon"/, /such as "500ms", "30s"/]],
  ['negative duration', ['run', 'ok.json', '--duration', '-5s'], 2, [/--duration "-5s"/, /such as "500ms"/]],
  ['zero duration', ['run', 'ok.json', '--duration', '0'], 2, [/--duration "0"/, /such as "500ms"/]],
  ['duration without a value', ['run', 'ok.json', '--duration'], 2, [/duration/]],
  ['rate not a rate', ['run', 'ok.json', '--rate', 'fast'], 2, [/--rate: "fast"/, /"100\/min", "16.7\/s"/]],
  ['negative rate', ['run', 'ok.json', '--rate', '-5/s'], 2, [/--rate: "-5\/s"/, /"100\/min"/]],
  ['zero rate', ['run', 'ok.json', '--rate', '0/s'], 2, [/--rate: "0\/s" is not a rate > 0/]],
  ['unknown tier', ['run', 'ok.json', '--tier', 'gold'], 2, [/--tier "gold"/, /free, pro, or a limit per minute/]],
  ['zero max-in-flight', ['run', 'ok.json', '--max-in-flight', '0'], 2, [/--max-in-flight must be a whole number from 1/, /got 0/]],
  ['negative max-in-flight', ['run', 'ok.json', '--max-in-flight', '-1'], 2, [/--max-in-flight/, /got -1/]],
  ['max-in-flight not a number', ['run', 'ok.json', '--max-in-flight', 'abc'], 2, [/--max-in-flight must be a whole number/, /not a number/]],
  ['zero connections', ['run', 'ok.json', '--connections', '0'], 2, [/--connections must be a whole number from 1/]],
  ['fractional connections', ['run', 'ok.json', '--connections', '2.5'], 2, [/--connections/, /got 2.5/]],
  ['unknown transport', ['run', 'ok.json', '--transport', 'h2'], 2, [/transport/, /h1/, /undici/]],
  ['metrics port out of range', ['run', 'ok.json', '--metrics-port', '70000'], 2, [/--metrics-port must be a whole number from 0 to 65535/]],
  ['bad shard', ['run', 'ok.json', '--shard', '0/3'], 2, [/--shard "0\/3"/, /i\/N with 1 <= i <= N/]],
  ['zero shards', ['run', 'ok.json', '--shards', '0'], 2, [/--shards must be a whole number from 1/]],
  ['missing file', ['run', './nope.json'], 2, [/file \S*nope\.json does not exist/, /a file \(\.ts\/\.js\/\.json\/\.yaml\) or one of .*smoke/]],
  ['bad JSON', ['run', 'bad.json'], 2, [/bad\.json: invalid JSON/]],
  ['bad YAML', ['run', 'bad.yaml'], 2, [/bad\.yaml: invalid YAML/, /line \d+/]],
  ['a .ts that throws at import', ['run', 'throws.ts'], 2, [/throws\.ts: could not load: boom at import/]],
  ['a .ts that does not compile', ['run', 'syntax.ts'], 2, [/syntax\.ts: could not load/]],
  ['a .ts without a scenario export', ['run', 'no-export.ts'], 2, [/no-export\.ts: exports no scenario/, /export default defineScenario/]],
  ['unsupported file type', ['run', 'scenario.txt'], 2, [/unsupported file type "\.txt"/, /\.json, \.yaml/]],
  ['unknown keys', ['run', 'unknown-keys.json'], 2, [/laod: unknown field/, /allowed fields: name, description, tier, load/, /mix\[0\]\.wieght: unknown field/, /allowed: op, weight/]],
  ['negative and zero numbers in a scenario', ['run', 'negatives.json'], 2, [/load\.rate: "-5\/s" is not a rate/, /load\.duration: must be longer than 0/, /load\.maxInFlight: must be an integer >= 1/, /mix\[0\]\.weight: must be > 0/]],
  ['zero concurrency', ['run', 'zero-concurrency.json'], 2, [/load\.concurrency: must be an integer >= 1/]],
  ['unknown operation', ['run', 'bad-op.json'], 2, [/mix\[0\]\.op/, /run/]],
  ['non-http base URL', ['run', 'ok.json', '--base-url', 'ftp://x/v1', '--token', TOKEN], 2, [/--base-url must be an http:\/\/ or https:\/\/ address/]],
  ['base URL that is not a URL', ['run', 'ok.json', '--base-url', 'not a url', '--token', TOKEN], 2, [/--base-url "not a url" is not a URL/]],
  ['real target without a token', ['run', 'ok.json', '--base-url', service.baseUrl], 2, [/needs a token: set FLOWGAUGE_TOKEN, or pass --token-file PATH or --token - \(stdin\)/]],
  ['wrong token', ['run', 'ok.json', '--base-url', service.baseUrl, '--token', 'wrong'], 2, [/refused the token: 401 UNAUTHORIZED/, /valid --token/]],
  ['--out is a file', ['run', 'ok.json', ...target(), '--out', 'a-file'], 2, [/cannot write reports to .*a-file \(a file is in the way\)/, /--out/]],
  ['--out under a file', ['run', 'ok.json', ...target(), '--out', 'a-file/sub'], 2, [/cannot write reports to .*a-file\/sub/]],
  ['unreachable target', ['run', 'ok.json', '--base-url', 'http://127.0.0.1:1/v1', '--token', TOKEN, '--out', 'down'], 3, [/target http:\/\/127\.0\.0\.1:1\/v1 could not be reached: CONNECTION_REFUSED/]],
];

describe('flowgauge run with bad input', () => {
  it('exits with DESIGN\'s code and a message naming the problem, for every case', async () => {
    const sent = service.stats().requests;
    const cases = CASES();
    recordFigures('cliInput', { cases: cases.length, exitCodes: Object.fromEntries(cases.map(([n, , c]) => [n, c])) });
    for (const [name, argv, exit, patterns] of cases) {
      const r = await run(argv);
      expect(r.code, `${name}: ${r.err}`).toBe(exit);
      for (const p of patterns) expect(r.err, name).toMatch(p);
      // A message, not a stack trace; never the token.
      // flowgauge's own internal-error line or a stack frame, not the exit-code legend of the
      // command list a bare `flowgauge` prints (it names code 70, "internal error").
      expect(r.err, name).not.toMatch(/flowgauge: internal error|\n\s+at \S.*:\d+:\d+/);
      expect(r.err + r.out, name).not.toContain(TOKEN);
    }
    // Only the wrong-token case reached the service (its one preparation request).
    expect(service.stats().requests - sent).toBe(1);
    expect(existsSync(join(dir, 'down', 'report.json'))).toBe(false);
  });

  it('the binary exits with the same code as main', async () => {
    const p = spawnCli(['run', 'nope.json'], { cwd: dir });
    const { code } = await p.exited;
    expect(code).toBe(2);
    expect(p.stderr()).toMatch(/file \S*nope\.json does not exist/);
  });
});
