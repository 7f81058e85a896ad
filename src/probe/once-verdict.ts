/**
 * What one `probe --once` round says, for its exit code and its closing lines. A scheduler reads
 * the exit code as "did the prober work", so the verdict keeps four things apart:
 *
 * - `ok`: every check succeeded and is in the history (0);
 * - `failed`: the target failed a check, recorded (1): an outage, the target's business;
 * - findings that are not downtime (a certificate under `--cert-min-days`, TLS below 1.3) leave
 *   the verdict as it is: they are exported (records, metrics, alerts) and said, never a
 *   failure of the prober (a CronJob failing for 14 days over a certificate helps nobody);
 * - the prober failing: `not-the-interface` (every check answered 404 with a page that is not
 *   the service's: the address is wrong, 76) and `unrecorded` (records the history could not
 *   store, 70).
 */
import { FOREIGN_ANSWER } from './checks.js';
import type { CheckName, ProbeRecord } from './record.js';

/** The verdict of a round, from best to worst. */
export type OnceOutcome = 'ok' | 'failed' | 'not-the-interface' | 'unrecorded';

/** What a round found. */
export interface OnceVerdict {
  readonly outcome: OnceOutcome;
  readonly failed: readonly CheckName[];
  /** One sentence per finding that is not downtime (the certificate, the TLS version). */
  readonly findings: readonly string[];
}

/** True when every record is a 404 answered by something else than the service (a web server's page). */
function notTheInterface(records: readonly ProbeRecord[]): boolean {
  return records.length > 0 && records.every((r) => !r.success && r.status === 404 && r.detail?.includes(FOREIGN_ANSWER) === true);
}

function findingsOf(records: readonly ProbeRecord[]): string[] {
  const out: string[] = [];
  for (const r of records) {
    const t = r.tls;
    if (t === null) continue;
    if (t.certOk === false) {
      const left = t.certDaysLeft;
      const when = left === null ? 'an unknown number of days left' : left < 0 ? `expired ${(-left).toFixed(1)} days ago` : `${left.toFixed(1)} days left`;
      out.push(`${r.check}: the certificate has ${when} (${t.certValidTo ?? 'unknown date'}), under --cert-min-days ${t.certMinDays ?? ''}: renew it`);
    }
    if (!t.versionOk) out.push(`${r.check}: negotiated ${t.version ?? 'an unknown TLS version'}, below the TLSv1.3 target`);
  }
  return out;
}

/** The verdict of one round's records; `unstored` counts those the history could not store. */
export function onceVerdict(records: readonly ProbeRecord[], unstored: number): OnceVerdict {
  const failed = records.filter((r) => !r.success).map((r) => r.check);
  const outcome: OnceOutcome = unstored > 0 ? 'unrecorded' : notTheInterface(records) ? 'not-the-interface' : failed.length > 0 ? 'failed' : 'ok';
  return { outcome, failed, findings: findingsOf(records) };
}
