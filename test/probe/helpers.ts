/** Shared helpers of the probe tests: synthetic records and temporary directories. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CheckName, ProbeRecord } from '../../src/probe/index.js';

const dirs: string[] = [];

/** A fresh temporary directory, removed by `removeTempDirs`. */
export function tempDir(prefix = 'flowgauge-probe-'): string {
  const d = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(d);
  return d;
}

/** Removes every directory made by `tempDir`. */
export function removeTempDirs(): void {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
}

/** A record with the given essentials and plausible everything else. */
export function record(over: Partial<ProbeRecord> & { timeMs: number; check?: CheckName; success?: boolean }): ProbeRecord {
  const { timeMs, ...rest } = over;
  const success = over.success ?? true;
  return {
    v: 1,
    time: new Date(timeMs).toISOString(),
    mono: timeMs * 1e6,
    instance: 'test0001',
    round: 0,
    check: 'listFlows',
    success,
    status: success ? 200 : 503,
    error: success ? null : 'SERVICE_UNAVAILABLE',
    intervalMs: 60_000,
    phasesMs: { dns: null, connect: 0.2, tls: null, ttfb: 1.5, transfer: 0.1, total: 1.8 },
    ttftMs: null,
    tls: null,
    ...rest,
  };
}

/**
 * Records of `rounds` rounds, one minute apart from `startMs`, for each check; `down(round, check)`
 * says which fail.
 */
export function rounds(
  startMs: number,
  count: number,
  checks: readonly CheckName[],
  down: (round: number, check: CheckName) => boolean = () => false,
  intervalMs = 60_000,
): ProbeRecord[] {
  const out: ProbeRecord[] = [];
  for (let i = 0; i < count; i++) {
    for (const check of checks) out.push(record({ timeMs: startMs + i * intervalMs, check, round: i, success: !down(i, check), intervalMs }));
  }
  return out;
}
