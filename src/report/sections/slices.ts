/**
 * `sliceMs` and `slices`: each shard's slices placed on the merged run's clock by wall time (the
 * shard's `startedAt` + the slice's `t`); counts add and each operation's latency histogram
 * merges exactly.
 */
import { encodeHistogram } from '../../collect/histogram.js';
import type { SliceEntry } from '../../collect/slices.js';
import { OPS, type OpName } from '../../core/ops.js';
import type { Report } from '../model.js';
import { round3, setting, type Part, type Scope } from './merge-kit.js';
import { mergeEncoded } from './merge-histograms.js';
import type { FullSection, ScopeState } from './project-kit.js';

type WithSlices = Pick<Report, 'slices'> & Partial<Pick<Report, 'sliceMs'>>;

const sliceMsRule = setting<number>({ label: 'the slice length (sliceMs)' });

/** The slice length every part shares (1000 ms for a report that does not say). */
function sliceMsOf(parts: readonly Part<WithSlices>[], scope: Scope): number {
  const values = parts.map((p) => ({ value: p.value.sliceMs ?? 1000, source: p.source }));
  return sliceMsRule.merge(values, { scope, path: 'sliceMs', key: 'sliceMs', parents: parts.length }) as number;
}

/** `sliceMs`, kind `setting`: the parts must agree (else an error). */
export const sliceMsSection: FullSection<number, WithSlices, ScopeState> = {
  project: (s) => s.snapshot.sliceMs,
  merge: (parts, scope) => sliceMsOf(parts, scope),
};

interface SliceAcc {
  requests: number;
  good: number;
  bad: number;
  excluded: number;
  responses429: number;
  ops: Map<OpName, { count: number; parts: { enc: string; name: string; what: string }[] }>;
}

/** `slices`: counts `sum`, latencies `histogram`, each slice where its start falls on the merged clock. */
export const slicesSection: FullSection<readonly SliceEntry[], WithSlices, ScopeState> = {
  project: (s) => s.snapshot.slices,
  merge(parts, scope) {
    const sliceMs = sliceMsOf(parts, scope);
    if (parts.length === 1) return parts[0]?.value.slices as SliceEntry[];
    const acc: SliceAcc[] = [];
    for (const p of parts) {
      p.value.slices.forEach((slice, i) => {
        const index = Math.max(0, Math.floor((p.source.startMs + slice.t * 1000 - scope.startMs) / sliceMs + 1e-6));
        const a = (acc[index] ??= { requests: 0, good: 0, bad: 0, excluded: 0, responses429: 0, ops: new Map() });
        a.requests += slice.requests;
        a.good += slice.good;
        a.bad += slice.bad;
        a.excluded += slice.excluded;
        a.responses429 += slice.responses429;
        for (const [op, v] of Object.entries(slice.ops) as [OpName, { count: number; latency: string }][]) {
          let o = a.ops.get(op);
          if (o === undefined) a.ops.set(op, (o = { count: 0, parts: [] }));
          o.count += v.count;
          o.parts.push({ enc: v.latency, name: p.source.name, what: `slices[${i}].ops.${op}.latency` });
        }
      });
    }
    const sliceS = sliceMs / 1000;
    return Array.from({ length: acc.length }, (_, i) => {
      const a = acc[i];
      const t = round3(i * sliceS);
      if (a === undefined) return { t, requests: 0, good: 0, bad: 0, excluded: 0, responses429: 0, ops: {} };
      const ops: Partial<Record<OpName, { count: number; latency: string }>> = {};
      for (const op of OPS) {
        const o = a.ops.get(op);
        if (o !== undefined) ops[op] = { count: o.count, latency: encodeHistogram(mergeEncoded(o.parts)) };
      }
      return { t, requests: a.requests, good: a.good, bad: a.bad, excluded: a.excluded, responses429: a.responses429, ops };
    });
  },
};
