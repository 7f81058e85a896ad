/** `--name value` flags of the bench scripts (they are run by bench/run.ts, not by people). */

/** The value after `--name`, or `fallback`. */
export function flag(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  const v = i >= 0 ? process.argv[i + 1] : undefined;
  return v === undefined ? fallback : v;
}

/** `--name` as a number, or `fallback`. */
export function numFlag(name: string, fallback: number): number {
  const v = Number(flag(name, String(fallback)));
  if (!Number.isFinite(v)) throw new Error(`--${name} must be a number`);
  return v;
}

/** True when `--name` is present. */
export function hasFlag(name: string): boolean {
  return process.argv.includes(`--${name}`);
}

/** Prints the driver's one result line. */
export function printResult(result: unknown): void {
  process.stdout.write(`RESULT ${JSON.stringify(result)}\n`);
}
