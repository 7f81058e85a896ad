/**
 * Compiles a `steps` list into a journey. Templates are parsed once, here, so an iteration only
 * fills them in; every name a template uses is checked against what earlier steps save, and
 * every problem is reported by its path (`steps[2].steps[0].sessionId: …`).
 */
import type { ConfigIssue } from '../core/errors.js';
import type { OpName } from '../core/ops.js';
import type { ParsedOpStep, ParsedStep } from './steps-schema.js';
import type { Journey, Vu } from './journey.js';

type Vars = Record<string, unknown>;
/** A field with its templates parsed: fills in the values of one iteration. */
type Fill = (vu: Vu, vars: Vars) => unknown;

const TEMPLATE = /\{\{\s*([^{}\s]+)\s*\}\}/g;
const BUILTIN = new Set(['iteration', 'flowId', 'scenario']);

/** Thrown inside an iteration to end it as failed; the engine records the message. */
function failWith(vu: Vu, message: string): never {
  return vu.fail(message);
}

function lookup(name: string, vu: Vu, vars: Vars): unknown {
  if (name.startsWith('data.')) {
    const column = name.slice(5);
    if (!Object.hasOwn(vu.data, column)) failWith(vu, `data has no column "${column}"`);
    return vu.data[column];
  }
  if (name === 'iteration') return vu.iteration;
  if (name === 'flowId') return vu.flowId;
  if (name === 'scenario') return vu.scenario;
  if (!Object.hasOwn(vars, name)) failWith(vu, `"${name}" was not saved before it was used`);
  return vars[name];
}

const text = (v: unknown): string => (typeof v === 'string' ? v : v === undefined || v === null ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v));

/** Parses one string's templates; names it uses go to `used`. */
function compileString(s: string, used: Set<string>): Fill {
  const parts: (string | { name: string })[] = [];
  let last = 0;
  for (const m of s.matchAll(TEMPLATE)) {
    const name = m[1] as string;
    used.add(name);
    if (m.index > last) parts.push(s.slice(last, m.index));
    parts.push({ name });
    last = m.index + m[0].length;
  }
  if (parts.length === 0) return () => s;
  if (last < s.length) parts.push(s.slice(last));
  const only = parts.length === 1 ? parts[0] : undefined;
  // A field that is one template keeps the value's type (a saved number stays a number).
  if (only !== undefined && typeof only !== 'string') return (vu, vars) => lookup(only.name, vu, vars);
  return (vu, vars) => {
    let out = '';
    for (const p of parts) out += typeof p === 'string' ? p : text(lookup(p.name, vu, vars));
    return out;
  };
}

/** Compiles any JSON value: strings are templates, objects and arrays are walked. */
function compileValue(v: unknown, used: Set<string>): Fill {
  if (typeof v === 'string') return compileString(v, used);
  if (Array.isArray(v)) {
    const items = v.map((x) => compileValue(x, used));
    return (vu, vars) => items.map((f) => f(vu, vars));
  }
  if (v !== null && typeof v === 'object') {
    const entries = Object.entries(v).map(([k, x]) => [k, compileValue(x, used)] as const);
    return (vu, vars) => Object.fromEntries(entries.map(([k, f]) => [k, f(vu, vars)]));
  }
  return () => v;
}

/** Reads `a.b[0].c` from a value; only own properties, and `length` of arrays and strings. */
export function readPath(value: unknown, path: string): unknown {
  if (path === '' || path === '.') return value;
  let cur: unknown = value;
  for (const key of path.replace(/\[(\d+)\]/g, '.$1').split('.').filter((k) => k !== '')) {
    if (typeof cur === 'string' && key === 'length') cur = cur.length;
    else if (Array.isArray(cur)) cur = key === 'length' ? cur.length : /^\d+$/.test(key) ? cur[Number(key)] : undefined;
    else if (cur !== null && typeof cur === 'object' && Object.hasOwn(cur, key)) cur = (cur as Record<string, unknown>)[key];
    else return undefined;
  }
  return cur;
}

/** A check with its templates filled for one iteration: what it reads, and what it expects. */
interface FilledCheck {
  readonly path: string;
  readonly test: (v: unknown) => boolean;
  /** What it expects, as a person reads it (`"echo: hi"`, `matches /^a/`, `>= 1`). */
  readonly expected: () => string;
}

interface CheckRule {
  readonly name: string;
  readonly fill: (vu: Vu, vars: Vars) => FilledCheck;
}

const escapeRegExp = (s: string): string => s.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');

/**
 * Parses a `matches` pattern's templates: a filled value matches itself literally (its
 * characters escaped, as one group so a quantifier after it applies to the whole value).
 */
function compilePattern(pattern: string, used: Set<string>): (vu: Vu, vars: Vars) => RegExp {
  const parts: (string | { name: string })[] = [];
  let last = 0;
  for (const m of pattern.matchAll(TEMPLATE)) {
    const name = m[1] as string;
    used.add(name);
    if (m.index > last) parts.push(pattern.slice(last, m.index));
    parts.push({ name });
    last = m.index + m[0].length;
  }
  if (last === 0) {
    const re = new RegExp(pattern);
    return () => re;
  }
  if (last < pattern.length) parts.push(pattern.slice(last));
  // Rows repeat (and most patterns fill the same way every time): compile again only when the source changes.
  let cached: { source: string; re: RegExp } | undefined;
  return (vu, vars) => {
    let source = '';
    for (const p of parts) source += typeof p === 'string' ? p : `(?:${escapeRegExp(text(lookup(p.name, vu, vars)))})`;
    if (cached?.source !== source) cached = { source, re: new RegExp(source) };
    return cached.re;
  };
}

/** What a check saw, as example text: JSON of the value, or where nothing was. */
const seen = (v: unknown, path: string): string => (v === undefined ? `nothing at ${JSON.stringify(path === '' ? '.' : path)}` : (JSON.stringify(v) ?? String(v)));

function checkRule(name: string, c: NonNullable<ParsedOpStep['check']>[string], used: Set<string>): CheckRule {
  const path = compileString(c.path ?? '', used);
  const equals = c.equals === undefined ? undefined : compileValue(c.equals, used);
  const matches = c.matches === undefined ? undefined : compilePattern(c.matches, used);
  const { min, max } = c;
  return {
    name,
    fill: (vu, vars) => {
      const want = equals?.(vu, vars);
      const re = matches?.(vu, vars);
      return {
        path: text(path(vu, vars)),
        test: (v) =>
          (equals === undefined || v === want) &&
          (re === undefined || (typeof v === 'string' && re.test(v))) &&
          (min === undefined || (typeof v === 'number' && v >= min)) &&
          (max === undefined || (typeof v === 'number' && v <= max)),
        expected: () =>
          [
            ...(equals !== undefined ? [JSON.stringify(want) ?? String(want)] : []),
            ...(re !== undefined ? [`matches /${re.source}/`] : []),
            ...(min !== undefined ? [`>= ${min}`] : []),
            ...(max !== undefined ? [`<= ${max}`] : []),
          ].join(' and '),
      };
    },
  };
}

type Run = (vu: Vu, vars: Vars) => Promise<void>;

function compileOp(s: ParsedOpStep, at: string, used: Set<string>): Run {
  const f = (v: unknown): Fill | undefined => (v === undefined ? undefined : compileValue(v, used));
  const flowId = f(s.flowId);
  const input = f(s.input);
  const sessionId = f(s.sessionId);
  const runId = f(s.runId);
  const query = f(s.query);
  const body = f(s.body);
  const str = (fill: Fill | undefined, vu: Vu, vars: Vars): string | undefined => (fill === undefined ? undefined : text(fill(vu, vars)));
  const label = s.name ?? `${at} ${s.op}`;
  const saves = Object.entries(s.save ?? {});
  const checks = Object.entries(s.check ?? {}).map(([name, c]) => checkRule(name, c, used));

  const send = (op: OpName, vu: Vu, vars: Vars): Promise<{ ok: boolean; value?: unknown; error?: { code: string } }> => {
    const flow = str(flowId, vu, vars) ?? vu.flowId;
    switch (op) {
      case 'run':
      case 'stream': {
        const session = str(sessionId, vu, vars);
        const b = { input: str(input, vu, vars) ?? '', ...(session !== undefined ? { session_id: session } : {}) };
        return op === 'run' ? vu.run(flow, b) : vu.stream(flow, b);
      }
      case 'getRun':
        return vu.getRun(str(runId, vu, vars) ?? '');
      case 'listFlows':
        return vu.listFlows(query?.(vu, vars) as Parameters<Vu['listFlows']>[0]);
      case 'getFlow':
        return vu.getFlow(flow);
      case 'createSession':
        return vu.createSession({ flow_id: flow, ...(body?.(vu, vars) as object | undefined) });
      case 'getHistory':
        return vu.getHistory(str(sessionId, vu, vars) ?? '');
      case 'getUsage':
        return vu.getUsage(query?.(vu, vars) as Parameters<Vu['getUsage']>[0]);
      case 'trigger':
        return vu.trigger(flow, (body?.(vu, vars) as Record<string, unknown> | undefined) ?? {});
    }
  };

  return async (vu, vars) => {
    const result = s.name === undefined ? await send(s.op, vu, vars) : await vu.step(s.name, () => send(s.op, vu, vars));
    if (!result.ok) {
      if (vu.signal.aborted) return;
      const code = result.error?.code ?? 'failed';
      for (const c of checks) vu.check(c.name, false, { expected: c.fill(vu, vars).expected(), actual: `no answer: ${code}` });
      failWith(vu, `${label}: ${code}`);
    }
    for (const c of checks) {
      const f = c.fill(vu, vars);
      const v = readPath(result.value, f.path);
      if (f.test(v)) vu.check(c.name, true);
      else vu.check(c.name, false, { expected: f.expected(), actual: seen(v, f.path) });
    }
    for (const [name, path] of saves) {
      const v = readPath(result.value, path);
      if (v === undefined) failWith(vu, `${label}: the answer has no "${path}" to save as ${name}`);
      vars[name] = v;
    }
  };
}

function compileList(list: readonly ParsedStep[], at: string, saved: Set<string>, issues: ConfigIssue[]): Run {
  const runs = list.map((s, i): Run => {
    const here = `${at}[${i}]`;
    if ('sleep' in s) {
      const d = s.sleep;
      return (vu) => vu.sleep(d);
    }
    if ('repeat' in s) {
      const body = compileList(s.steps, `${here}.steps`, saved, issues);
      const times = s.repeat;
      return async (vu, vars) => {
        for (let n = 0; n < times && !vu.signal.aborted; n++) await body(vu, vars);
      };
    }
    const used = new Set<string>();
    const run = compileOp(s, here, used);
    for (const name of used) {
      if (name.startsWith('data.') ? name.length > 5 : BUILTIN.has(name) || saved.has(name)) continue;
      const known = [...saved].map((n) => `{{${n}}}`).concat('{{data.<column>}}', '{{iteration}}', '{{flowId}}');
      issues.push({ path: here, message: `{{${name}}} is not saved by an earlier step; known: ${known.join(', ')}` });
    }
    for (const name of Object.keys(s.save ?? {})) saved.add(name);
    return run;
  });
  return async (vu, vars) => {
    for (const r of runs) {
      if (vu.signal.aborted) return;
      await r(vu, vars);
    }
  };
}

/** Compiles `steps` into a journey; `issues` gets every name problem, by path under `at`. */
export function compileSteps(steps: readonly ParsedStep[], at = 'steps'): { readonly journey: Journey; readonly issues: readonly ConfigIssue[] } {
  const issues: ConfigIssue[] = [];
  const run = compileList(steps, at, new Set(), issues);
  const journey: Journey = (vu) => run(vu, {});
  return { journey, issues };
}
