/**
 * `-e NAME=VALUE` for the whole run, as k6's `-e` is: besides `${NAME}` in JSON/YAML scenarios,
 * a TypeScript scenario reads `process.env.NAME`. The values are set for the command and the
 * previous ones put back after it, so an in-process caller (tests, a program using `main`) is left
 * as it was.
 */

/** Runs `fn` with `vars` set in `process.env`, restoring every name afterwards. */
export async function withProcessEnv<T>(vars: Readonly<Record<string, string>>, fn: () => Promise<T>): Promise<T> {
  const names = Object.keys(vars);
  if (names.length === 0) return fn();
  const previous = new Map(names.map((n) => [n, process.env[n]]));
  for (const n of names) process.env[n] = vars[n];
  try {
    return await fn();
  } finally {
    for (const [n, v] of previous) {
      if (v === undefined) delete process.env[n];
      else process.env[n] = v;
    }
  }
}
