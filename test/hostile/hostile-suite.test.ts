/**
 * The attack suite: for each mode of the raw-socket hostile server (`hostile-modes.ts`), the
 * real CLI runs a short scenario against it (`flowgauge run … --base-url … --token <secret>`)
 * and, whatever the target does:
 *
 * - the process exits on its own within a bound (its deadlines hold: 2 s per request, 3 s of
 *   grace, longer than the deadline, so what the target holds open is its TIMEOUT, not cut by
 *   the end of the run), with 0 or 1, never a crash, an internal error or a hang;
 * - report.json is written, schema-valid, and every started request is accounted for (the
 *   server saw each one, and each is counted under its operation or cancelled);
 * - the child's peak RSS stays under 400 MB (the kernel's high-water mark);
 * - the token appears nowhere: stdout, stderr, every report file, the pushed metrics;
 * - no request reached another host (redirects are never followed), and target text in the
 *   reports is escaped.
 *
 * Modes run a few at a time: each child mostly waits on its schedule and on stalled sockets.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPORT_JSON_SCHEMA, type Report } from '../../src/report/index.js';
import { killIfRunning, scaledMs, spawnCli, type CliProcess } from '../reliability/cli-process.js';
import { recordFigures } from '../reliability/figures.js';
import { waitBounded } from './bounded-child.js';
import { startCollector, startHostileServer, type Collector } from './hostile-server.js';
import { bombBodies, deepBodies, MODES, type HostileMode } from './hostile-modes.js';

/** Recognisable, and long enough that a fragment of it cannot occur by chance. */
const SECRET = 'fgHOSTILEc4d9e2b7a1f0token';
const SECRET_CORE = 'c4d9e2b7a1f0';
/** 20/s for 500 ms: 10 requests, run and stream alike. */
const SCHEDULED = 10;
/**
 * Safety net against a hang, not a timing assertion: a healthy run here takes a few seconds
 * (0.5 s of schedule, 2 s deadlines, 3 s of grace) after start-up; stretched on a machine that
 * starts the CLI slowly (five of these children run at once).
 */
const EXIT_BOUND_MS = scaledMs(40_000);
/**
 * The CLI under tsx sits at about 200 MB with nothing to hold (its loader thread alone is about
 * 40 MB); each open request may buffer up to its 16 MiB cap, and ten are open at once.
 */
const RSS_BOUND_MB = 400;
const validate = new Ajv({ allErrors: true, strict: false }).compile(REPORT_JSON_SCHEMA);

let dir: string;
let collector: Collector;
const children: CliProcess[] = [];
const figures: { mode: string; seconds: number; peakRssMb: number | null; exit: number | null; run: string; stream: string }[] = [];

beforeAll(async () => {
  bombBodies();
  deepBodies();
  dir = mkdtempSync(join(tmpdir(), 'fg-hostile-'));
  collector = await startCollector();
  writeFileSync(
    join(dir, 'hostile.json'),
    JSON.stringify({
      name: 'hostile',
      tier: 'pro',
      load: { executor: 'constant-arrival-rate', rate: '20/s', duration: '500ms', gracefulStop: '3s' },
      mix: [
        { op: 'run', weight: 1, input: 'hi' },
        { op: 'stream', weight: 1, input: 'hi' },
      ],
      timeouts: { request: '2s' },
      seed: 7,
    }),
  );
});

afterAll(async () => {
  for (const c of children) await killIfRunning(c);
  await collector.close();
  rmSync(dir, { recursive: true, force: true });
  const order = MODES.map((m) => m.name);
  figures.sort((a, b) => order.indexOf(a.mode) - order.indexOf(b.mode));
  recordFigures('hostileSuite', figures);
});

function expectNoSecret(label: string, text: string): void {
  expect(text.includes(SECRET_CORE), `${label} contains the token`).toBe(false);
  expect(text.includes(Buffer.from(SECRET).toString('base64').slice(0, 16)), `${label} contains the token in base64`).toBe(false);
}

async function attack(mode: HostileMode, index: number): Promise<void> {
  const server = await startHostileServer(mode.handler, { elsewhere: `${collector.url}/elsewhere-${index}`, ...(mode.flowId !== undefined ? { flowId: mode.flowId } : {}) });
  const out = join(dir, `out-${index}`);
  const started = performance.now();
  const cli = spawnCli(
    ['run', 'hostile.json', '--base-url', server.baseUrl, '--token', SECRET, '--out', out, '--quiet', '--no-audit', '--no-follow', '--pushgateway', `${collector.url}/mode-${index}`],
    { cwd: dir },
  );
  children.push(cli);
  const { code, signal, seconds, peakMb: peak } = await waitBounded(cli, EXIT_BOUND_MS, started);
  const measured = server.measured();
  const authorizations = server.authorizations();
  await server.close();

  const files = existsSync(out) ? readdirSync(out) : [];
  const text = (f: string): string => (files.includes(f) ? readFileSync(join(out, f), 'utf8') : '');
  const report = files.includes('report.json') ? (JSON.parse(text('report.json')) as Report) : undefined;
  const errorsOf = (op: 'run' | 'stream'): string =>
    Object.entries(report?.ops[op]?.errors ?? {})
      .map(([e, n]) => `${e} ×${n}`)
      .join(', ');
  figures.push({ mode: mode.name, seconds: Math.round(seconds * 10) / 10, peakRssMb: peak === undefined ? null : Math.round(peak), exit: code, run: errorsOf('run'), stream: errorsOf('stream') });

  // Ends on its own, as a run that failed its objective or passed: no kill, crash or internal error.
  expect(signal, `killed after ${EXIT_BOUND_MS} ms: ${cli.stderr()}`).toBeNull();
  expect([0, 1], `exit ${code}: ${cli.stderr()}`).toContain(code);

  expect(files).toEqual(expect.arrayContaining(['report.json', 'report.md', 'report.html']));
  if (report === undefined) throw new Error('no report.json');
  expect(validate(report), JSON.stringify(validate.errors)).toBe(true);

  // Every request of the schedule started, reached the target, and is counted or cancelled.
  expect(report.load.started + report.load.dropped).toBe(SCHEDULED);
  const counted = Object.values(report.ops).reduce((n, s) => n + s.count, 0) + (report.load.cancelled ?? 0);
  expect(counted, 'records lost').toBe(report.load.started);
  expect(measured, 'requests the target saw').toBe(report.load.started);
  // The token did reach the target (so finding it nowhere means something), and nothing else.
  expect(authorizations).toEqual([`Bearer ${SECRET}`]);

  expect(report.slo.good, 'a hostile answer counted as good').toBe(0);
  expect(report.slo.bad, 'hostile answers counted as bad').toBe(report.load.started - (report.load.cancelled ?? 0));
  // On a starved machine (the suite beside the rest of CI) any request may reach its deadline
  // before the target's bytes are read: TIMEOUT is a bad outcome every mode allows.
  for (const e of Object.values(report.ops).flatMap((s) => Object.keys(s.errors))) expect([...mode.errors, 'TIMEOUT'], `unexpected ${e}`).toContain(e);

  if (peak !== undefined) expect(peak, 'peak RSS (MB)').toBeLessThan(RSS_BOUND_MB);

  expectNoSecret('stdout', cli.stdout());
  expectNoSecret('stderr', cli.stderr());
  for (const f of files) expectNoSecret(f, text(f));
  const pushed = collector.pushes(`mode-${index}`).join('\n');
  expect(pushed, 'metrics were pushed').toMatch(/flowgauge_/);
  expectNoSecret('pushed metrics', pushed);
  expect(collector.strays(`elsewhere-${index}`), 'requests that reached another host').toBe(0);

  // Target text is escaped: no markup, and the verdict heading is the only one saying PASS or FAIL.
  const md = text('report.md');
  // Escaped text such as `&lt;img onerror=…` is inert; a raw tag is not.
  expect(md).not.toMatch(/<script|<img/i);
  expect(md.match(/^\s*#+.*(PASS|FAIL)/gm)).toHaveLength(1);
  expect(text('report.html')).not.toMatch(/<script>alert|<img src=x/i);
  if (mode.escaped !== undefined) for (const f of ['report.md', 'report.html']) expect(text(f), f).toContain(mode.escaped);
}

describe.concurrent('hostile targets: the CLI ends, reports, accounts, stays small and keeps the token', () => {
  MODES.forEach((mode, i) => {
    it(mode.name, () => attack(mode, i), EXIT_BOUND_MS + 20_000);
  });
});
