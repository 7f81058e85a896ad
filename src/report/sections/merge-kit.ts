/**
 * The rules a field of report@1 merges by, and the loop that merges a report (or one scenario's
 * section of it) section by section. Pure.
 *
 * Nothing here guesses from a field's name: each section module states, field by field, which
 * rule combines it (`fields({...})` is typed over every field of its object, so a field added to
 * the model does not compile until its rule is written). The kinds:
 *
 * | kind | merged value |
 * |---|---|
 * | `sum` | the parts added (counts, and maps of counts key by key) |
 * | `min` / `max` | the lowest / highest part (null parts ignored; null when all are) |
 * | `mean` | the parts' means weighted by a count of the same object, named by the rule |
 * | `union` | distinct entries of every part, in order (bounded where the writer bounds them) |
 * | `setting` | how the run was set up: the parts must agree (else an error, or the field is left out, as the rule says) |
 * | `histogram` | re-read from the merged HDR histogram of `histograms` (exact) |
 * | `worst` | a summary with no histogram: each statistic's worst part, the mean weighted by count (not exact, never better than the truth) |
 * | `recompute` | computed again from merged figures (a ratio, a rate, a window) |
 * | `any` / `all` | flags: true when one part / every part says so |
 * | `first` | the earliest shard's |
 * | `each` | a map: each key merged by one rule |
 * | `fields` | an object: each field by its own rule |
 *
 * `histogram` and `worst`, and the merge of the histograms themselves, are in `merge-histograms.ts`.
 *
 * A field that no part has stays absent (fields added within @1 are optional); a rule sees only
 * the parts that have it. Merging one part gives it back unchanged: every rule is the identity
 * on one value.
 */
import { FlowgaugeError } from '../../core/errors.js';

/** Where one part comes from: a shard's report, or one scenario's section of it. */
export interface Source {
  /** How errors name it: the file (`a.json`), with the scenario for a section (`a.json scenarios.pro`). */
  readonly name: string;
  /** The shard's `startedAt`, ms since the epoch. */
  readonly startMs: number;
  /** The shard report's `durationS`. */
  readonly durationS: number;
  /** The part's own serialised histograms (`histograms` of the report or of the section). */
  readonly histograms: Readonly<Record<string, string>>;
}

/** One shard's value of what is being merged. */
export interface Part<V> {
  readonly value: V;
  readonly source: Source;
}

/** What every rule of one merge can read: the merged report's start and its merged histograms. */
export interface Scope {
  /** The merged run's start (the earliest shard's), ms since the epoch. */
  readonly startMs: number;
  /** Every histogram of this scope, merged exactly across the parts. */
  readonly histograms: Readonly<Record<string, string>>;
  /** The parts of this scope, earliest start first. */
  readonly sources: readonly Source[];
}

/** Where a rule is applied. */
export interface RuleContext {
  readonly scope: Scope;
  /** The field's path within its report or section (`asyncRuns.pollsPerRun.mean`), for messages. */
  readonly path: string;
  /** The field's own name (the last part of `path`). */
  readonly key: string;
  /** How many parts have the object the field belongs to (a rule sees only those that have the field). */
  readonly parents: number;
}

/** Which kind of rule (the table above). */
export type RuleKind = 'sum' | 'min' | 'max' | 'mean' | 'union' | 'setting' | 'histogram' | 'worst' | 'recompute' | 'any' | 'all' | 'first' | 'each' | 'fields';

/** How the values of one field combine. */
export interface Rule<V> {
  readonly kind: RuleKind;
  /** `parts`: the parts that have the field (at least one). Undefined leaves the field out. */
  merge(parts: readonly Part<V>[], ctx: RuleContext): V | undefined;
}

/**
 * A field computed after its object's other fields, from the whole parts (`mean` needs the
 * weight beside it) or from the merged figures (`recompute`).
 */
export interface Derived<T, V> {
  readonly kind: 'mean' | 'recompute';
  from(parents: readonly Part<T>[], merged: Partial<T>, ctx: RuleContext): V | undefined;
}

/** A rule for every field of `T`: leaving one out does not compile. */
export type FieldRules<T> = { readonly [K in keyof T]-?: Rule<Exclude<T[K], undefined>> | Derived<T, Exclude<T[K], undefined>> };

/** Thrown for reports that cannot be merged. */
export const fail = (message: string): never => {
  throw new FlowgaugeError('FG_REPORT_INVALID', message);
};

export const round3 = (x: number): number => Math.round(x * 1000) / 1000;

const one = <V>(parts: readonly Part<V>[]): V | undefined => (parts.length === 1 ? (parts[0] as Part<V>).value : undefined);

// ---- sum, min, max ----------------------------------------------------------------------------

/** `sum`: the parts added. */
export const sum: Rule<number> = { kind: 'sum', merge: (parts) => one(parts) ?? parts.reduce((n, p) => n + p.value, 0) };

/** `sum` of maps of counts (`statuses`, `errors`, `rejected`): key by key. */
export const sumCounts: Rule<Readonly<Record<string, number>>> = {
  kind: 'sum',
  merge(parts) {
    const out: Record<string, number> = {};
    for (const p of parts) for (const [k, n] of Object.entries(p.value)) out[k] = (out[k] ?? 0) + n;
    return out;
  },
};

/** `sum` of a figure that is null for some kinds of run (a closed model's target rate): null when any part is. */
export const sumOrNull: Rule<number | null> = {
  kind: 'sum',
  merge: (parts) => one(parts) ?? (parts.every((p) => p.value !== null) ? round3(parts.reduce((n, p) => n + (p.value as number), 0)) : null),
};

function extreme<V extends number | null>(kind: 'min' | 'max'): Rule<V> {
  return {
    kind,
    merge(parts) {
      const nums = parts.map((p) => p.value).filter((v): v is NonNullable<V> => v !== null);
      if (nums.length === 0) return null as V;
      return (kind === 'min' ? Math.min(...nums) : Math.max(...nums)) as V;
    },
  };
}

/** `min`: the lowest part; null parts (nothing seen) are ignored. */
export const min = <V extends number | null>(): Rule<V> => extreme<V>('min');
/** `max`: the highest part; null parts (nothing seen) are ignored. */
export const max = <V extends number | null>(): Rule<V> => extreme<V>('max');

// ---- means, summaries, histograms -------------------------------------------------------------

/**
 * `mean`: the parts' means weighted by `weight`, a count of the same object (the mean polls per
 * run by the runs finished). Rounded to `digits` as the writer rounds it. 0 when no weight.
 */
export function weightedMean<T, K extends keyof T>(weight: K & string, digits = 3): Derived<T, number> {
  const f = 10 ** digits;
  return {
    kind: 'mean',
    from(parents, _merged, ctx) {
      const key = ctx.key as keyof T;
      const parts = parents.filter((p) => typeof p.value[key] === 'number');
      if (parts.length === 1) return (parts[0] as Part<T>).value[key] as number;
      let total = 0;
      let weighted = 0;
      for (const p of parts) {
        const w = Number(p.value[weight] ?? 0);
        total += w;
        weighted += (p.value[key] as number) * w;
      }
      return total === 0 ? 0 : Math.round((weighted / total) * f) / f;
    },
  };
}

// ---- settings, flags, lists -------------------------------------------------------------------

/** Options of `setting`. */
export interface SettingOptions<V> {
  /** What the setting is, for the error (`the SLO objective`); default the field's path. */
  readonly label?: string;
  /**
   * When the parts disagree: `error` (default; the shards were not of one run), `absent` (the
   * field is left out, as a run of scenarios with different values leaves it out), or a
   * function giving the merged value (`unknown` for the reset semantics).
   */
  readonly disagree?: 'error' | 'absent' | ((values: readonly V[]) => V);
}

/** `setting`: how the run was set up; the parts must agree. */
export function setting<V>(options: SettingOptions<V> = {}): Rule<V> {
  return {
    kind: 'setting',
    merge(parts, ctx) {
      const first = parts[0] as Part<V>;
      const other = parts.find((p) => JSON.stringify(p.value) !== JSON.stringify(first.value));
      if (other === undefined) return first.value;
      const d = options.disagree ?? 'error';
      if (d === 'absent') return undefined;
      if (typeof d === 'function') return d(parts.map((p) => p.value));
      return fail(
        `cannot merge: ${options.label ?? ctx.path} differs (${first.source.name}: ${JSON.stringify(first.value)}, ${other.source.name}: ${JSON.stringify(other.value)}); shards of one run share it`,
      );
    },
  };
}

/** `any`: true when one part says so. */
export const anyOf: Rule<boolean> = { kind: 'any', merge: (parts) => parts.some((p) => p.value) };

/** `all`: true when every part says so. */
export const allOf: Rule<boolean> = { kind: 'all', merge: (parts) => parts.every((p) => p.value) };

/**
 * `all`, for a flag written only when true (`audit.usage.forbidden`): true when every part that
 * has the object says so; otherwise left out (a part without the flag said false).
 */
export const allFlag: Rule<boolean> = { kind: 'all', merge: (parts, ctx) => (parts.length === ctx.parents && parts.every((p) => p.value) ? true : undefined) };

/** `first`: the earliest shard's value (parts come earliest start first). */
export function first<V>(): Rule<V> {
  return { kind: 'first', merge: (parts) => (parts[0] as Part<V>).value };
}

/**
 * `union`: the distinct entries of every part (`key` says which are the same), earliest shard
 * first, at most `max` (what the writer keeps).
 */
export function union<E>(key: (e: E) => string, max = Infinity): Rule<readonly E[]> {
  return {
    kind: 'union',
    merge(parts) {
      const only = one(parts);
      if (only !== undefined && only.length <= max) return only;
      const seen = new Map<string, E>();
      for (const p of parts) for (const e of p.value) if (!seen.has(key(e)) && seen.size < max) seen.set(key(e), e);
      return [...seen.values()];
    },
  };
}

/** A rule written for one field (its kind still one of the table's). */
export function custom<V>(kind: RuleKind, merge: (parts: readonly Part<V>[], ctx: RuleContext) => V | undefined): Rule<V> {
  return { kind, merge };
}

/** `recompute`: computed from the merged fields of its object (and the parts, when it needs them). */
export function recompute<T, V>(from: (merged: Partial<T>, parents: readonly Part<T>[], ctx: RuleContext) => V | undefined): Derived<T, V> {
  return { kind: 'recompute', from: (parents, merged, ctx) => from(merged, parents, ctx) };
}

// ---- objects and maps -------------------------------------------------------------------------

const isDerived = <T, V>(r: Rule<V> | Derived<T, V>): r is Derived<T, V> => 'from' in r;

/**
 * `fields`: an object, each field by its rule; a field no part has stays absent. Derived fields
 * (`mean`, `recompute`) come after the others. The merged object has the table's field order.
 */
export function fields<T extends object>(rules: FieldRules<T>): Rule<T> {
  const entries = Object.entries(rules) as [string, Rule<unknown> | Derived<T, unknown>][];
  return {
    kind: 'fields',
    merge(parts, ctx) {
      const out: Record<string, unknown> = {};
      const has = (key: string): Part<unknown>[] =>
        parts.flatMap((p) => {
          const v = (p.value as Record<string, unknown>)[key];
          return v === undefined ? [] : [{ value: v, source: p.source }];
        });
      const at = (key: string): RuleContext => ({ scope: ctx.scope, path: ctx.path === '' ? key : `${ctx.path}.${key}`, key, parents: parts.length });
      for (const [key, rule] of entries) {
        if (isDerived(rule)) continue;
        const present = has(key);
        if (present.length === 0) continue;
        const v = rule.merge(present, at(key));
        if (v !== undefined) out[key] = v;
      }
      for (const [key, rule] of entries) {
        if (!isDerived(rule) || has(key).length === 0) continue;
        const v = rule.from(parts, out as Partial<T>, at(key));
        if (v !== undefined) out[key] = v;
      }
      return Object.fromEntries(entries.flatMap(([k]) => (k in out ? [[k, out[k]]] : []))) as T;
    },
  };
}

/** Options of `each`. */
export interface EachOptions {
  /** The keys' order in the merged map (keys not in it follow in order of appearance). */
  readonly order?: readonly string[];
}

/** `each`: a map whose entries merge by key, each with the rule `ruleOf(key)` gives. */
export function each<V>(ruleOf: (key: string) => Rule<V>, options: EachOptions = {}): Rule<Readonly<Record<string, V>>> {
  return {
    kind: 'each',
    merge(parts, ctx) {
      const seen = [...new Set(parts.flatMap((p) => Object.keys(p.value)))];
      const order = options.order;
      const keys = order === undefined ? seen : [...order.filter((k) => seen.includes(k)), ...seen.filter((k) => !order.includes(k))];
      const out: Record<string, V> = {};
      for (const key of keys) {
        const present = parts.flatMap((p) => (Object.hasOwn(p.value, key) && p.value[key] !== undefined ? [{ value: p.value[key] as V, source: p.source }] : []));
        const v = ruleOf(key).merge(present, { scope: ctx.scope, path: `${ctx.path}.${key}`, key, parents: parts.length });
        if (v !== undefined) out[key] = v;
      }
      return out;
    },
  };
}

// ---- sections and the loop over them ----------------------------------------------------------

/** How one section of a report (or of a scenario's section) merges. */
export interface Section<V, S = object> {
  /** True for sections judged on the merged whole (thresholds): they run after every other. */
  readonly after?: boolean;
  /** `parts`: every part of the scope (with or without this section). Undefined leaves it out. */
  merge(parts: readonly Part<S>[], scope: Scope, key: string, merged: Partial<S>): V | undefined;
}

/** A merger for every field of `S`: a section added to the model does not compile until it has one. */
export type Sections<S> = { readonly [K in keyof S & string]-?: Section<Exclude<S[K], undefined>, S> };

/** A section that merges by one rule over the parts that have it. */
export function bySection<V>(rule: Rule<V>): Section<V> {
  return {
    merge(parts, scope, key) {
      const present = parts.flatMap((p) => {
        const v = (p as Part<Record<string, unknown>>).value[key];
        return v === undefined ? [] : [{ value: v as V, source: p.source }];
      });
      return present.length === 0 ? undefined : rule.merge(present, { scope, path: key, key, parents: parts.length });
    },
  };
}

/** Merges the parts of one scope section by section (those marked `after` last); a section left undefined is left out. */
export function mergeSections<S extends object>(sections: Sections<S>, parts: readonly Part<S>[], scope: Scope): S {
  const out: Record<string, unknown> = {};
  const list = Object.entries(sections) as [string, Section<unknown, S>][];
  for (const pass of [false, true]) {
    for (const [key, section] of list) {
      if ((section.after === true) !== pass) continue;
      const v = section.merge(parts, scope, key, out as Partial<S>);
      if (v !== undefined) out[key] = v;
    }
  }
  return Object.fromEntries(list.flatMap(([k]) => (k in out ? [[k, out[k]]] : []))) as S;
}
