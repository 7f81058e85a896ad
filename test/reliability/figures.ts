/**
 * The figures `docs/reliability.md` quotes (cases tried, crashes, records lost, signal-to-report
 * times). Tests print nothing; with `FG_RELIABILITY_FIGURES=<dir>` set they write
 * `<dir>/<name>.json`, one file per test file so parallel workers never share a file.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Writes `value` as `<dir>/<name>.json` when `FG_RELIABILITY_FIGURES` names a directory. */
export function recordFigures(name: string, value: unknown): void {
  const dir = process.env.FG_RELIABILITY_FIGURES;
  if (dir === undefined || dir === '') return;
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${name}.json`), `${JSON.stringify(value, null, 2)}\n`);
}
