/**
 * Writes that fail say so: every output of every command against a full disk (a 256 KiB tmpfs
 * filled to its last page) and a read-only one. Each must end with exit 2, a message naming the
 * path and the system's reason, no "internal error", and no temp file (`*.tmp-PID`) left behind;
 * a probe whose record could not be stored fails; a stdout that could not be written (`> full
 * disk`, `> /dev/full`) fails. Before: exit 70 with a stack and temp files left (run), exit 0
 * with an empty file (`report > full/x.md`), exit 0 "all checks succeeded" over a gap in the
 * probe history.
 */
import { closeSync, existsSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { LOCK_FILE } from '../../src/cli/out-lock.js';
import { CLI_BIN, until } from '../reliability/cli-process.js';
import { cannotMount, mountSmallDisk, type SmallDisk } from './small-disk.js';

const BIN = CLI_BIN;
const SCENARIO = { name: 'disk', tier: 'pro', load: { executor: 'constant-arrival-rate', rate: '10/s', duration: '1s' }, mix: [{ op: 'listFlows' }], thresholds: {} };

let dir: string;
let disk: SmallDisk;
let report: string;

async function cli(argv: readonly string[], cwd = dir): Promise<{ code: number; err: string; out: string }> {
  const io = memoryIo({ cwd });
  const code = await main(argv, io);
  return { code, err: io.err(), out: io.out() };
}

/** The real CLI with its stdout on `fd`: exit code and stderr. */
function spawnWithStdout(argv: readonly string[], fd: number): Promise<{ code: number | null; err: string }> {
  const child = spawn(process.execPath, [BIN, ...argv], { cwd: tmpdir(), stdio: ['ignore', fd, 'pipe'], env: { ...process.env, NO_COLOR: '1' } });
  let err = '';
  child.stderr?.setEncoding('utf8').on('data', (s: string) => (err += s));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, err })));
}

/** Every file under `d` whose name is a temp file's (or a lock's, once the command is over). */
function leftovers(d: string): string[] {
  if (!existsSync(d)) return [];
  return readdirSync(d, { recursive: true, encoding: 'utf8' }).filter((f) => /\.tmp-\d+$/.test(f) || f.endsWith(LOCK_FILE));
}

/** Exit 2, the path and the reason named, no stack, nothing left behind in `out`. */
function expectWriteFailed(r: { code: number | null; err: string }, path: RegExp, reason: RegExp, out?: string): void {
  expect(r.code, r.err.slice(0, 3000)).toBe(2);
  expect(r.err).toMatch(path);
  expect(r.err).toMatch(reason);
  expect(r.err).not.toMatch(/internal error|\n\s+at /);
  if (out !== undefined) expect(leftovers(out)).toEqual([]);
}

const ENOSPC = /no space left on device \(ENOSPC\)/;

describe.skipIf(cannotMount !== undefined)('a full disk', () => {
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'fg-full-disk-'));
    writeFileSync(join(dir, 'disk.json'), JSON.stringify(SCENARIO));
    const r = await cli(['run', 'disk.json', '--out', 'base', '--quiet', '--no-audit']);
    expect(r.code, r.err).toBe(0);
    report = join(dir, 'base', 'report.json');
    disk = mountSmallDisk(256);
  }, 120_000);
  afterAll(() => {
    disk?.unmount();
    rmSync(dir, { recursive: true, force: true });
  });

  it('run --out on a full disk: exit 2 naming report.json and ENOSPC, the summary still printed, no temp file or lock left', async () => {
    disk.fill();
    const out = join(disk.dir, 'run');
    const r = await cli(['run', 'disk.json', '--out', out, '--quiet', '--no-audit']);
    expectWriteFailed(r, /could not write \S+\/run\/report\.json/, ENOSPC, out);
    // The run itself happened: its figures are on the console, and it says the report is not on disk.
    expect(r.out).toMatch(/flowgauge disk: PASS/);
    expect(r.err).toMatch(/the report is not on disk/);
    expect(existsSync(join(out, 'report.json'))).toBe(false);
  }, 120_000);

  it('capacity --out on a full disk: exit 2 naming capacity.json', async () => {
    disk.fill();
    const out = join(disk.dir, 'cap');
    const r = await cli(['capacity', 'listFlows', '--out', out, '--step', '1s', '--max-concurrency', '1']);
    expectWriteFailed(r, /could not write \S+\/cap\/capacity\.json/, ENOSPC, out);
  }, 120_000);

  it('conformance --out on a full disk: exit 2 naming conformance.json', async () => {
    disk.fill();
    const out = join(disk.dir, 'conf');
    const r = await cli(['conformance', '--out', out, '--quiet']);
    expectWriteFailed(r, /could not write \S+\/conf\/conformance\.json/, ENOSPC, out);
  }, 120_000);

  it('merge -o on a full disk: exit 2 naming the merged report', async () => {
    disk.fill();
    const out = join(disk.dir, 'merged');
    const r = await cli(['merge', report, '-o', join(out, 'merged.json')]);
    expectWriteFailed(r, /could not write \S+\/merged\/merged\.json/, ENOSPC, out);
  }, 60_000);

  it('report --out on a full disk: exit 2, and no half-written file', async () => {
    disk.fill();
    const r = await cli(['report', report, '--out', join(disk.dir, 'r.html')]);
    expectWriteFailed(r, /could not write \S+\/r\.html/, ENOSPC, disk.dir);
    expect(existsSync(join(disk.dir, 'r.html'))).toBe(false);
  }, 60_000);

  it('new on a full disk: exit 2 naming the file and the reason; no file, not even an empty one, and an old one kept whole under --force', async () => {
    const kept = join(disk.dir, 'kept.ts');
    writeFileSync(kept, '// mine\n');
    // To its last byte: a scenario (~2 KiB) fits in the page the other cases leave.
    disk.fill(0);
    const r = await cli(['new', join(disk.dir, 'first-check'), '--journey']);
    expectWriteFailed(r, /could not write \S+\/first-check\.ts/, ENOSPC, disk.dir);
    expect(existsSync(join(disk.dir, 'first-check.ts'))).toBe(false);
    const forced = await cli(['new', join(disk.dir, 'kept'), '--journey', '--force']);
    expectWriteFailed(forced, /could not write \S+\/kept\.ts/, ENOSPC, disk.dir);
    expect(readFileSync(kept, 'utf8')).toBe('// mine\n');
  }, 60_000);

  it('probe --once whose records cannot be stored: exit 2, not "all checks succeeded" with exit 0', async () => {
    disk.fill(0);
    const history = join(disk.dir, 'history');
    const r = await cli(['probe', '--once', '--interval', '1m', '--checks', 'listFlows', '--history', history]);
    expect(r.code, r.err).toBe(2);
    expect(r.err).toMatch(/could not write the listFlows record to \S+\/history: no space left on device \(ENOSPC\)/);
    expect(r.err).toMatch(/1 of 1 records could not be stored in \S+\/history/);
    expect(r.err).not.toMatch(/internal error/);
  }, 60_000);

  it('report > a file on the full disk (the real process): exit 2, "could not write to standard output"', async () => {
    disk.fill(0);
    const fd = openSync(join(disk.dir, 'x.md'), 'w');
    try {
      const r = await spawnWithStdout(['report', report, '--format', 'md'], fd);
      expect(r.code, r.err).toBe(2);
      expect(r.err).toMatch(/could not write to standard output: no space left on device \(ENOSPC\)/);
      expect(r.err).not.toMatch(/internal error/);
    } finally {
      closeSync(fd);
    }
  }, 60_000);
});

describe('a stdout that cannot be written', () => {
  it('compare > /dev/full (the real process): exit 2, not 0', async () => {
    const d = mkdtempSync(join(tmpdir(), 'fg-dev-full-'));
    try {
      writeFileSync(join(d, 'disk.json'), JSON.stringify(SCENARIO));
      const made = await cli(['run', 'disk.json', '--out', 'base', '--quiet', '--no-audit'], d);
      expect(made.code, made.err).toBe(0);
      const fd = openSync('/dev/full', 'w');
      try {
        const r = await spawnWithStdout(['compare', join(d, 'base', 'report.json'), join(d, 'base', 'report.json')], fd);
        expect(r.code, r.err).toBe(2);
        expect(r.err).toMatch(/could not write to standard output: no space left on device \(ENOSPC\)/);
      } finally {
        closeSync(fd);
      }
    } finally {
      rmSync(d, { recursive: true, force: true });
    }
  }, 120_000);
});

describe.skipIf(cannotMount !== undefined)('a read-only disk', () => {
  let ro: SmallDisk;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'fg-ro-disk-'));
    writeFileSync(join(dir, 'disk.json'), JSON.stringify({ ...SCENARIO, load: { ...SCENARIO.load, duration: '3s' } }));
    ro = mountSmallDisk(256);
  });
  afterAll(() => {
    ro?.unmount();
    rmSync(dir, { recursive: true, force: true });
  });

  it('run --out and probe --history on a read-only file system are refused at start (exit 2, the reason)', async () => {
    await ro.readOnly(true);
    try {
      const run = await cli(['run', 'disk.json', '--out', join(ro.dir, 'run'), '--quiet']);
      expect(run.code, run.err).toBe(2);
      expect(run.err).toMatch(/cannot write reports to \S+\/run \(a read-only file system/);
      expect(run.out).not.toMatch(/flowgauge disk:/);
      const probe = await cli(['probe', '--once', '--checks', 'listFlows', '--history', join(ro.dir, 'h')]);
      expect(probe.code, probe.err).toBe(2);
      expect(probe.err).toMatch(/cannot write the probe history to \S+\/h \(a read-only file system/);
    } finally {
      await ro.readOnly(false);
    }
  }, 60_000);

  it('a disk made read-only during the run: exit 2 naming the report directory and the reason when the report is written', async () => {
    const out = join(ro.dir, 'mid');
    const io = memoryIo({ cwd: dir });
    const running = main(['run', 'disk.json', '--out', out, '--quiet', '--no-audit'], io);
    // The lock is taken at start, before any request: the run is under way once it is there.
    await until(() => existsSync(join(out, LOCK_FILE)) && readFileSync(join(out, LOCK_FILE), 'utf8').endsWith('\n'), 'the run to take its --out', 60_000);
    await ro.readOnly(true);
    try {
      const code = await running;
      expectWriteFailed({ code, err: io.err() }, /cannot write reports to \S+\/mid \(a read-only file system\)/, /the report is not on disk/);
      expect(io.out()).toMatch(/flowgauge disk: PASS/);
    } finally {
      await ro.readOnly(false);
    }
  }, 120_000);
});
