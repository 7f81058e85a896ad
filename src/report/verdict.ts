/**
 * The verdict a person reads first, in one place for the console, report.md, report.html and
 * report.json: a run the user interrupted, or one an abort-on-fail threshold ended, is never a
 * pass, whatever its thresholds said when it stopped.
 */
/** The verdict a person reads first: `INTERRUPTED` and `ABORTED` are never a pass. */
export type RunVerdict = 'PASS' | 'FAIL' | 'INTERRUPTED' | 'ABORTED';

/** What the verdict is decided from. */
export interface VerdictInput {
  readonly interrupted: boolean;
  readonly abortedBy?: string | undefined;
  readonly passed: boolean;
}

/** `INTERRUPTED`, `ABORTED`, `FAIL` or `PASS`, in that order of precedence. */
export function reportVerdict(r: VerdictInput): RunVerdict {
  if (r.interrupted) return 'INTERRUPTED';
  if (r.abortedBy !== undefined) return 'ABORTED';
  return r.passed ? 'PASS' : 'FAIL';
}
