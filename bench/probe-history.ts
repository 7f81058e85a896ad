/**
 * Reads a 1 GB probe history with both of its readers and reports what it cost, for the
 * figure in docs/reliability.md. A measurement run by hand, never by CI (it writes 1 GB):
 *
 *   npx tsx bench/probe-history.ts                  1 GiB, default heap
 *   npx tsx bench/probe-history.ts --mb 256 --heap 64 --keep
 *
 * Writes one day file of rounds 100 ms apart ending a minute ago (so a restarted probe reads
 * it all), then runs `slo status --json` on it and `probe --once` restarting on a copy, one
 * after the other, each a child process whose peak RSS is the kernel's high-water mark. Prints
 * one JSON line per reader and removes the files unless `--keep`.
 */
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnCli } from '../test/reliability/cli-process.js';
import { watchPeakRss } from '../test/reliability/peak-rss.js';
import { writeBigHistory } from '../test/probe/big-history.js';

function flag(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

async function measure(label: string, cwd: string, args: string[], nodeArgs: string[]): Promise<void> {
  const started = performance.now();
  const p = spawnCli(args, { cwd, nodeArgs });
  const rss = watchPeakRss(p.child.pid as number, 10);
  const { code, signal } = await p.exited;
  rss.stop();
  const seconds = (performance.now() - started) / 1000;
  const tail = p.stderr().trim().split('\n').slice(-2).join(' | ');
  console.log(JSON.stringify({ reader: label, exit: code, signal, seconds: Number(seconds.toFixed(1)), peakRssMb: Math.round(rss.peakMb() ?? -1), nodeArgs, ...(tail !== '' ? { stderr: tail } : {}) }));
}

async function main(): Promise<void> {
  const mb = Number(flag('--mb') ?? 1024);
  const heap = flag('--heap');
  const nodeArgs = heap === undefined ? [] : [`--max-old-space-size=${heap}`];
  const cwd = mkdtempSync(join(tmpdir(), 'flowgauge-history-bench-'));
  try {
    mkdirSync(join(cwd, 'status'));
    mkdirSync(join(cwd, 'probe'));
    const endMs = Date.now() - 60_000;
    const t0 = performance.now();
    const h = await writeBigHistory(join(cwd, 'status'), { bytes: mb * 2 ** 20, endMs, spacingMs: 100, failingTail: 5 });
    for (const f of h.files) copyFileSync(join(cwd, 'status', f), join(cwd, 'probe', f));
    const bytes = h.files.reduce((n, f) => n + statSync(join(cwd, 'status', f)).size, 0);
    console.log(JSON.stringify({ history: { files: h.files.length, bytes, mb: Math.round(bytes / 2 ** 20), records: h.records, writeSeconds: Number(((performance.now() - t0) / 1000).toFixed(1)) } }));
    const at = new Date(endMs + 1000).toISOString();
    await measure('slo status', cwd, ['slo', 'status', '--history', 'status', '--window', '1d', '--at', at, '--json', '--out', 'status.json'], nodeArgs);
    await measure('probe --once (restart)', cwd, ['probe', '--once', '--history', 'probe', '--checks', 'listFlows', '--quiet'], nodeArgs);
  } finally {
    if (process.argv.includes('--keep')) console.log(JSON.stringify({ kept: cwd }));
    else rmSync(cwd, { recursive: true, force: true });
  }
}

await main();
