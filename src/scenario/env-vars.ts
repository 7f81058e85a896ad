/**
 * `${NAME}` and `${NAME:-default}` in the strings of a JSON or YAML scenario, filled from the
 * environment (`flowgauge run -e NAME=value`, as k6's `__ENV`). A field that is one reference
 * and whose value reads as a number or a boolean becomes that number or boolean, so
 * `concurrency: ${VUS}` works. `$${` writes a literal `${`.
 */
import type { ConfigIssue } from '../core/errors.js';
import { FORBIDDEN_KEYS } from '../core/input-limits.js';
import { formatPath } from './issues.js';

const REF = /\$\$\{|\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;
const WHOLE = /^\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}$/;
const NUMBER = /^-?\d+(\.\d+)?(e[+-]?\d+)?$/i;

function typed(v: string): string | number | boolean {
  if (NUMBER.test(v)) return Number(v);
  if (v === 'true' || v === 'false') return v === 'true';
  return v;
}

/**
 * Returns `value` with every reference filled; `issues` gets one entry per reference to a
 * variable that is not set and has no default, by path.
 */
export function fillEnvVars(value: unknown, env: Readonly<Record<string, string | undefined>>, issues: ConfigIssue[], path: PropertyKey[] = []): unknown {
  if (typeof value === 'string') {
    if (!value.includes('${')) return value;
    const whole = WHOLE.exec(value);
    if (whole !== null) {
      const v = env[whole[1] as string] ?? whole[2];
      if (v === undefined) issues.push(missing(whole[1] as string, path));
      return v === undefined ? value : typed(v);
    }
    return value.replace(REF, (m, name: string | undefined, dflt: string | undefined) => {
      if (name === undefined) return '${';
      const v = env[name] ?? dflt;
      if (v === undefined) {
        issues.push(missing(name, path));
        return m;
      }
      return v;
    });
  }
  if (Array.isArray(value)) return value.map((x, i) => fillEnvVars(x, env, issues, [...path, i]));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      // `out["__proto__"] = v` would set the copy's prototype: such keys are refused, never copied.
      if (FORBIDDEN_KEYS.has(k)) issues.push({ path: formatPath([...path, k]), message: `the key "${k}" is not allowed` });
      else out[k] = fillEnvVars(v, env, issues, [...path, k]);
    }
    return out;
  }
  return value;
}

function missing(name: string, path: readonly PropertyKey[]): ConfigIssue {
  return { path: formatPath(path), message: `\${${name}} is not set: give -e ${name}=… (or set it in the environment), or write \${${name}:-default}` };
}
