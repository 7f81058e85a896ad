/** Objectives on the command line (`--objective`), shared by `slo rules` and `slo status`. */

/** What `--objective` accepts, for messages. */
export const OBJECTIVE_HELP = 'a percentage such as 99.9 or 99.9% or a ratio such as 0.999';

/**
 * Reads an objective: `99.9`, `99.9%` and `0.999` all mean 0.999 (a bare number from 1 up is
 * a percentage). `undefined` when unreadable or not strictly between 0 and 100 %.
 */
export function parseObjective(input: string): number | undefined {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(%?)\s*$/.exec(input);
  if (m === null) return undefined;
  const n = Number(m[1]);
  const ratio = m[2] === '%' || n >= 1 ? n / 100 : n;
  const r = Number(ratio.toPrecision(12));
  return r > 0 && r < 1 ? r : undefined;
}
