import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { OPS } from '../../src/core/ops.js';
import { parsePlanThresholds } from '../../src/run/plan-thresholds.js';
import { isRunPlan, loadScenarioFile, planOf, resolveRunPlan, type ResolvedRunPlan, type ResolvedScenario } from '../../src/scenario/index.js';

const DIR = 'scenarios';
const files = readdirSync(DIR).filter((f) => /\.(ts|yaml)$/.test(f));
const base = (f: string): string => f.replace(/\.(ts|yaml)$/, '');

// The threshold key grammar the run engine accepts (see the slo part).
const STAT = '(p50|p90|p95|p99|p999|max|mean)';
const KEY = new RegExp(
  `^((${OPS.join('|')})\\.latency\\.${STAT}|stream\\.(ttft|itl|tpot|timeToStart)\\.${STAT}|availability|errors\\.rate|ratelimit\\.(premature429|expected429|responses429)|dropped|iterations\\.failed|iteration\\.duration\\.${STAT}|checks|checks\\.[a-z ]+)$`,
);
const EXPR = /^(<|<=|>|>=|==)\s*\d+(\.\d+)?(ms|s|m|%)?$/;

// Each file is loaded once (through tsx, as the CLI does); a failure to resolve fails here.
const loaded = new Map<string, ResolvedScenario | ResolvedRunPlan>();
beforeAll(async () => {
  for (const f of files) loaded.set(base(f), resolveRunPlan(await loadScenarioFile(join(DIR, f)), {}, { source: join(DIR, f) }));
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
      [
        'async-poll.ts',
        'conversation-steps.yaml',
        'conversation.ts',
        'free-at-limit.ts',
        'list-pagination.ts',
        'mixed-pro.ts',
        'over-limit.ts',
        'pro-at-limit.ts',
        'prompt-sweep.ts',
        'smoke.ts',
        'soak.ts',
        'stream-ttft.ts',
        'tenants.ts',
      ],
    );
  });

  it.each(files)('%s resolves, is named after its file and has well-formed thresholds', (f) => {
    const s = plan(base(f));
    // As the run checks them before its first request: each could be observed in its scenario.
    expect(() => parsePlanThresholds(s)).not.toThrow();
    expect(s.source).toBe(join(DIR, f));
    expect(s.name).toBe(base(f));
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
    for (const name of ['conversation', 'conversation-steps', 'async-poll', 'prompt-sweep']) expect(typeof get(name).journey).toBe('function');
    expect(get('prompt-sweep').data).toMatchObject({ kind: 'file', order: 'sequential' });
    const smoke = get('smoke');
    for (const op of ['getRun', 'listFlows', 'getFlow', 'getHistory', 'getUsage']) {
      expect(smoke.mix.some((e) => e.op === op)).toBe(true);
    }
  });
});
