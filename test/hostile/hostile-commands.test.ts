/**
 * The attack suite for the commands beside `run`: `conformance`, `probe --once` and `capacity`
 * run (the real CLI, as a child) against every mode of the hostile server (`hostile-modes.ts`),
 * and, whatever the target does, each:
 *
 * - exits on its own, within its deadline, with a code it documents (never a crash, an internal
 *   error or a hang: a safety net kills it after `EXIT_BOUND_MS`, failing the test);
 * - writes its output: conformance.json and .md, a probe history record per check, capacity.json;
 * - counts no hostile answer as good (capacity's good throughput is 0 and it finds no capacity;
 *   the probe's stream and run checks fail; conformance never passes);
 * - stays under the same RSS bound as `run` (the kernel's high-water mark);
 * - keeps the token out of stdout, stderr and every file it writes.
 *
 * Before the bounded reader, `conformance` grew to gigabytes against an endless body, `probe
 * --once --checks stream` died of a heap OOM without a record, and `capacity stream` died in
 * autocannon with `RangeError: Invalid string length` and no capacity.json.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killIfRunning, scaledMs, spawnCli, type CliProcess } from '../reliability/cli-process.js';
import { recordFigures } from '../reliability/figures.js';
import { waitBounded } from './bounded-child.js';
import { bombBodies, deepBodies, MODES, type HostileMode } from './hostile-modes.js';
import { startCollector, startHostileServer, type Collector } from './hostile-server.js';

const SECRET = 'fgHOSTILEc4d9e2b7a1f0token';
const SECRET_CORE = 'c4d9e2b7a1f0';
/** Safety net against a hang, not a timing assertion: each command here ends in seconds. */
const EXIT_BOUND_MS = scaledMs(60_000);
/** The same bound as `run`'s suite: the CLI under tsx is about 200 MB with nothing to hold. */
const RSS_BOUND_MB = 400;
/**
 * The command's deadline in the suite (its default is 3 minutes). It counts from the process's
 * start: 30 s leave the battery about as long as 8 s did before they did, on a machine where the
 * CLI takes 10–20 s to start.
 */
const CONFORMANCE_DEADLINE_S = 30;

type Command = 'conformance' | 'probe' | 'capacity';
const COMMANDS: readonly Command[] = ['conformance', 'probe', 'capacity'];

let dir: string;
let collector: Collector;
const children: CliProcess[] = [];
const figures: { command: Command; mode: string; seconds: number; peakRssMb: number | null; exit: number | null; outcome: string }[] = [];

beforeAll(async () => {
  bombBodies();
  deepBodies();
  dir = mkdtempSync(join(tmpdir(), 'fg-hostile-cmd-'));
  collector = await startCollector();
});

afterAll(async () => {
  for (const c of children) await killIfRunning(c);
  await collector.close();
  rmSync(dir, { recursive: true, force: true });
  const order = MODES.map((m) => m.name);
  figures.sort((a, b) => COMMANDS.indexOf(a.command) - COMMANDS.indexOf(b.command) || order.indexOf(a.mode) - order.indexOf(b.mode));
  recordFigures('hostileCommands', figures);
});

function expectNoSecret(label: string, text: string): void {
  expect(text.includes(SECRET_CORE), `${label} contains the token`).toBe(false);
}

/** Every file under `d`, recursively, as text. */
function filesUnder(d: string): Record<string, string> {
  if (!existsSync(d)) return {};
  const out: Record<string, string> = {};
  for (const e of readdirSync(d, { withFileTypes: true, recursive: true })) {
    if (e.isFile()) out[join(e.parentPath, e.name)] = readFileSync(join(e.parentPath, e.name), 'utf8');
  }
  return out;
}

function argvOf(command: Command, baseUrl: string, out: string): string[] {
  const target = ['--base-url', baseUrl, '--token', SECRET];
  switch (command) {
    case 'conformance':
      return ['conformance', ...target, '--out', out, '--deadline', `${CONFORMANCE_DEADLINE_S}s`];
    case 'probe':
      return ['probe', ...target, '--once', '--interval', '1m', '--checks', 'listFlows,run,stream', '--timeout', '2s', '--history', out, '--json'];
    case 'capacity':
      return ['capacity', 'stream', ...target, '--out', out, '--step', '1s', '--start', '1', '--max-concurrency', '2'];
  }
}

/** What the command made of the mode, for the figures; asserts its output on the way. */
function judge(command: Command, files: Record<string, string>, out: string): string {
  const file = (name: string): string | undefined => files[join(out, name)];
  if (command === 'conformance') {
    const json = file('conformance.json');
    expect(json, 'conformance.json').toBeDefined();
    expect(file('conformance.md'), 'conformance.md').toBeDefined();
    const r = JSON.parse(json as string) as { passed: boolean; startedAt: string; endedAt: string; reachable: boolean; tokenAccepted: boolean; protocol?: string; requests: number; violations: { rule: string }[]; deadline?: unknown };
    expect(r.passed, 'a hostile target passed conformance').toBe(false);
    // The battery's own span (its clock, not the child's start-up on a loaded machine): its
    // deadline held. Twice the deadline is a bound against a hang, not a timing measurement.
    expect((Date.parse(r.endedAt) - Date.parse(r.startedAt)) / 1000, 'the battery outlived its deadline').toBeLessThan(2 * CONFORMANCE_DEADLINE_S);
    if (r.protocol !== undefined) return 'another protocol';
    if (!r.tokenAccepted) return 'token refused (401)';
    if (!r.reachable) return `unreachable after ${r.requests} request${r.requests === 1 ? '' : 's'}`;
    return `${r.violations.length} violations in ${r.requests} requests${r.deadline === undefined ? '' : ', deadline reached'}`;
  }
  if (command === 'probe') {
    const lines = Object.entries(files)
      .filter(([f]) => f.endsWith('.jsonl'))
      .flatMap(([, t]) => t.split('\n').filter((l) => l !== ''))
      .map((l) => JSON.parse(l) as { check: string; success: boolean; error: string | null });
    // One record per check: the outage is recorded whatever the answer did.
    expect(lines.map((l) => l.check).sort()).toEqual(['listFlows', 'run', 'stream']);
    for (const c of ['run', 'stream']) expect(lines.find((l) => l.check === c)?.success, `${c} check succeeded`).toBe(false);
    return lines
      .filter((l) => !l.success)
      .map((l) => `${l.check} ${l.error ?? 'failed'}`)
      .join(', ');
  }
  const json = file('capacity.json');
  expect(json, 'capacity.json').toBeDefined();
  const r = JSON.parse(json as string) as { best?: unknown; steps: { goodPerS: number; requests: number; bad?: Record<string, number> }[] };
  expect(r.best, 'a capacity found against a hostile target').toBeUndefined();
  for (const s of r.steps) expect(s.goodPerS, 'good throughput from hostile answers').toBe(0);
  const bad = r.steps[0]?.bad ?? {};
  return Object.entries(bad)
    .map(([k, n]) => `${k} ×${n}`)
    .join(', ');
}

const EXITS: Readonly<Record<Command, readonly number[]>> = {
  // 1 violations or cut by its deadline, 3 no answer at all, 76 another protocol on the first
  // request, 2 the token refused (the token-echo mode answers 401 to everything).
  conformance: [1, 2, 3, 76],
  probe: [1],
  capacity: [1],
};

async function attack(command: Command, mode: HostileMode, index: number): Promise<void> {
  const tag = `${command}-${index}`;
  const server = await startHostileServer(mode.handler, { elsewhere: `${collector.url}/elsewhere-${tag}`, ...(mode.flowId !== undefined ? { flowId: mode.flowId } : {}) });
  const out = join(dir, tag);
  const started = performance.now();
  const cli = spawnCli(argvOf(command, server.baseUrl, out), { cwd: dir });
  children.push(cli);
  const { code, signal, seconds, peakMb: peak } = await waitBounded(cli, EXIT_BOUND_MS, started);
  await server.close();
  const figure = { command, mode: mode.name, seconds: Math.round(seconds * 10) / 10, peakRssMb: peak === undefined ? null : Math.round(peak), exit: code, outcome: '' };
  figures.push(figure);

  expect(signal, `killed after ${EXIT_BOUND_MS} ms: ${cli.stderr()}`).toBeNull();
  expect(EXITS[command], `exit ${code}: ${cli.stderr()}`).toContain(code);
  expect(cli.stderr()).not.toMatch(/internal error|\n\s+at /);

  const files = filesUnder(out);
  figure.outcome = judge(command, files, out);
  if (peak !== undefined) expect(peak, 'peak RSS (MB)').toBeLessThan(RSS_BOUND_MB);

  expectNoSecret('stdout', cli.stdout());
  expectNoSecret('stderr', cli.stderr());
  for (const [f, t] of Object.entries(files)) expectNoSecret(f, t);
  expect(collector.strays(`elsewhere-${tag}`), 'requests that reached another host').toBe(0);
}

describe.concurrent('hostile targets: conformance, probe and capacity end, write their output, stay small and keep the token', () => {
  for (const command of COMMANDS) {
    MODES.forEach((mode, i) => {
      if (mode.commands !== undefined && !mode.commands.includes(command)) return;
      it(`${command}: ${mode.name}`, () => attack(command, mode, i), EXIT_BOUND_MS + 20_000);
    });
  }
});
