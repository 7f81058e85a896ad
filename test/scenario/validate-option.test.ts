/**
 * `validate: full | sample | off` in a scenario: accepted, `full` by default, anything else
 * refused naming the modes; a run that checks less than every body says so in its warnings.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/core/errors.js';
import { resolveScenario } from '../../src/scenario/index.js';
import { runAgainstService } from '../run/helpers.js';

const base = { name: 'demo', tier: 'pro', load: { rate: '600/min', duration: '30s' }, mix: [{ op: 'run', input: 'hi' }] };

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

describe('validate option', () => {
  it('is full by default and takes sample and off', () => {
    expect(resolveScenario(base).validate).toBe('full');
    expect(resolveScenario({ ...base, validate: 'sample' }).validate).toBe('sample');
    expect(resolveScenario({ ...base, validate: 'off' }).validate).toBe('off');
  });

  it('refuses anything else, naming the modes', () => {
    let issues: readonly { path: string; message: string }[] = [];
    try {
      resolveScenario({ ...base, validate: false });
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      issues = (err as ConfigError).issues;
    }
    expect(issues.find((i) => i.path === 'validate')?.message).toMatch(/full .*sample .*off/);
  });

  it.each([
    ['sample', 'VALIDATE_SAMPLE', /one 2xx body in 16/],
    ['off', 'VALIDATE_OFF', /status and HTTP framing only/],
  ] as const)('a run with validate: %s says so in its warnings', async (mode, code, text) => {
    const r = await runAgainstService({ name: 'v', tier: 'pro', load: { rate: '50/s', duration: '200ms' }, mix: [{ op: 'listFlows' }], validate: mode }, { run: { follow: false } });
    cleanups.push(r.close);
    const w = r.outcome.report.warnings?.find((x) => x.code === code);
    expect(w?.message).toMatch(text);
    expect(r.outcome.report.ops.listFlows?.count).toBeGreaterThan(0);
  });

  it('a run with every body checked has no such warning', async () => {
    const r = await runAgainstService({ name: 'v', tier: 'pro', load: { rate: '50/s', duration: '200ms' }, mix: [{ op: 'listFlows' }] }, { run: { follow: false } });
    cleanups.push(r.close);
    expect((r.outcome.report.warnings ?? []).filter((x) => x.code.startsWith('VALIDATE'))).toEqual([]);
  });
});
