/**
 * `-e NAME=VALUE` for the whole run, as k6's `-e` is: besides `${NAME}` in JSON/YAML scenarios,
 * a TypeScript scenario reads `process.env.NAME`. The values are set for the command and the
 * previous ones put back after it, so an in-process caller (tests, a program using `main`) is left
 * as it was.
 */

/**
 * Names set by commands still running, with the value from before the first of them and how many
 * hold it. Commands running at once in one process (a program calling `main` twice) end in any
 * order: restored by the last to end, a name is neither put back under a command still running
 * nor left behind with a value of the command that ended first.
 */
const held = new Map<string, { readonly before: string | undefined; holders: number }>();

/** Runs `fn` with `vars` set in `process.env`, restoring every name afterwards. */
export async function withProcessEnv<T>(vars: Readonly<Record<string, string>>, fn: () => Promise<T>): Promise<T> {
  const names = Object.keys(vars);
  if (names.length === 0) return fn();
  for (const n of names) {
    const h = held.get(n);
    if (h === undefined) held.set(n, { before: process.env[n], holders: 1 });
    else h.holders++;
    process.env[n] = vars[n];
  }
  try {
    return await fn();
  } finally {
    for (const n of names) {
      const h = held.get(n);
      if (h === undefined || --h.holders > 0) continue;
      held.delete(n);
      if (h.before === undefined) delete process.env[n];
      else process.env[n] = h.before;
    }
  }
}
