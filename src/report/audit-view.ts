/**
 * What a person reads of a usage audit, decided once for the console, report.md and report.html:
 * agreement, a token that may not read usage, an account-wide answer (every tenant's usage, the
 * service's design), a token difference only of runs the client saw without their usage, or a
 * difference.
 */
import type { UsageAuditReport } from './model.js';

/** The usage audit's verdict. */
export interface UsageVerdict {
  /** False only for a difference (or figures that could not be read). */
  readonly ok: boolean;
  /** The sentence, without the figures. */
  readonly text: string;
}

/**
 * True when the service and the client agree on every run and differ only in tokens that runs
 * the client saw finish without their usage (asynchronous ones) can account for.
 */
export function onlyUnknownTokensDiffer(u: UsageAuditReport): boolean {
  const d = u.diff;
  return d !== null && u.errors.length === 0 && d.totalRuns === 0 && d.successfulRuns === 0 && d.failedRuns === 0 && d.totalTokens > 0 && (u.clientUnknown?.runsWithoutTokens ?? 0) > 0;
}

/** The verdict of one usage audit. */
export function usageVerdict(u: UsageAuditReport): UsageVerdict {
  if (u.forbidden === true) return { ok: true, text: 'not compared: this token may not read usage, which is not a disagreement' };
  if (u.exact) return { ok: true, text: 'the service agrees with the client exactly' };
  if (u.accountWide === true) return { ok: true, text: "the service answered with the whole account's usage (every tenant's runs), and it matches the tenants' sum: not a disagreement" };
  if (onlyUnknownTokensDiffer(u)) {
    const n = u.clientUnknown?.runsWithoutTokens ?? 0;
    return { ok: true, text: `the service agrees on every run; its ${u.diff?.totalTokens ?? 0} more tokens are of the ${n} run${n === 1 ? '' : 's'} the client saw finish without their usage, not a difference` };
  }
  if (u.diff === null) return { ok: false, text: 'the service could not be read' };
  return { ok: false, text: 'the service and the client differ' };
}
