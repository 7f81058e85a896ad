import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { OPS } from '../../src/core/ops.js';
import { isRunPlan, loadScenarioFile, planOf, resolveRunPlan, type ResolvedRunPlan, type ResolvedScenario } from '../../src/scenario/index.js';

const DIR = 'scenarios';
const files = readdirSync(DIR).filter((f) => f.endsWith('.ts'));

// The threshold key grammar the run engine accepts (see the slo part).
const STAT = '(p50|p90|p95|p99|p999|max|mean)';
const KEY = new RegExp(
  `^((${OPS.join('|')})\\.latency\\.${STAT}|stream\\.(ttft|itl|tpot|timeToStart)\\.${STAT}|availability|errors\\.rate|ratelimit\\.(premature429|expected429|responses429)|dropped)$`,
);
const EXPR = /^(<|<=|>|>=|==)\s*\d+(\.\d+)?(ms|s|m|%)?$/;

// Each file is loaded once (through tsx, as the CLI does); a failure to resolve fails here.
const loaded = new Map<string, ResolvedScenario | ResolvedRunPlan>();
beforeAll(async () => {
  for (const f of files) loaded.set(f.replace(/\.ts$/, ''), resolveRunPlan(await loadScenarioFile(join(DIR, f)), {}, { source: join(DIR, f) }));
});

function get(name: string): ResolvedScenario {
  const s = loaded.get(name);
  if (s === undefined || isRunPlan(s)) throw new Error(`scenario ${name} not loaded, or a run of several`);
  return s;
}

function plan(name: string): ResolvedRunPlan {
  const s = loaded.get(name);
  if (s === undefined) throw new Error(`scenario ${name} not loaded`);
  return planOf(s);
}

describe('shipped scenarios', () => {
  it('includes the documented set', () => {
    expect(files.sort()).toEqual(
      ['free-at-limit', 'list-pagination', 'mixed-pro', 'over-limit', 'pro-at-limit', 'smoke', 'soak', 'stream-ttft', 'tenants'].map((n) => `${n}.ts`),
    );
  });

  it.each(files)('%s resolves, is named after its file and has well-formed thresholds', (f) => {
    const s = plan(f.replace(/\.ts$/, ''));
    expect(s.source).toBe(join(DIR, f));
    expect(`${s.name}.ts`).toBe(f);
    expect(s.description.length).toBeGreaterThan(0);
    const names = s.scenarios.map((x) => x.name);
    for (const t of s.thresholds) {
      const scope = /^([a-z0-9-]+):/.exec(t.key)?.[1];
      if (scope !== undefined) expect(names).toContain(scope);
      expect(t.key.replace(/^[a-z0-9-]+:/, '')).toMatch(KEY);
      expect(t.expr).toMatch(EXPR);
    }
  });

  it('sets the documented rates and durations', () => {
    const rate = (name: string): number => {
      const { load } = get(name);
      return 'ratePerS' in load ? load.ratePerS : Number.NaN;
    };
    expect(rate('free-at-limit')).toBeCloseTo(100 / 60, 9);
    expect(rate('pro-at-limit')).toBeCloseTo(1000 / 60, 9);
    expect(rate('over-limit')).toBeCloseTo(1.2 * (100 / 60), 9);
    expect(rate('mixed-pro')).toBeCloseTo(1000 / 60, 9);
    expect(rate('soak')).toBeCloseTo(0.8 * (1000 / 60), 9);
    expect(get('soak').load).toMatchObject({ durationMs: 30 * 60_000 });
    expect(get('mixed-pro').load).toMatchObject({ durationMs: 60_000 });
    const tenants = plan('tenants');
    expect(tenants.scenarios.map((x) => [x.name, x.tierLimitPerMinute, 'ratePerS' in x.load ? x.load.ratePerS * 60 : 0])).toEqual([
      ['free', 100, 150],
      ['pro', 1000, 800],
    ]);
    expect(tenants.tokenEnv).toEqual({ free: 'FREE_TOKEN', pro: 'PRO_TOKEN' });
    const smoke = get('smoke');
    for (const op of ['getRun', 'listFlows', 'getFlow', 'getHistory', 'getUsage']) {
      expect(smoke.mix.some((e) => e.op === op)).toBe(true);
    }
  });
});
