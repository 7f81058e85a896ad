/**
 * A phase that asked only for asynchronous values (following) hears only the samples that
 * carry one; an output (no value wish) hears every sample.
 */
import { describe, expect, it } from 'vitest';
import type { ApiResult } from '../../src/api/index.js';
import { createFakeClock } from '../../src/core/clock.js';
import type { RunSample } from '../../src/run/events.js';
import type { RunOutput } from '../../src/run/output.js';
import type { RunPhase } from '../../src/run/phase.js';
import { createRunState } from '../../src/run/run-state.js';
import type { SampleContext } from '../../src/run/sample.js';

const meta = { status: 200, requestId: undefined, rateLimit: undefined, startNs: 1, headersNs: 2, endNs: 3, sentNs: 1, connectNs: 0, tlsNs: 0 };
const ok = (value: unknown): ApiResult<unknown> => ({ ok: true, value, meta, violations: [] });
const ctx = (op: SampleContext['op']): SampleContext => ({ scenario: 's', op, flowId: 'f', negative: false, intendedNs: 0, step: undefined, sessionId: undefined, input: undefined });

describe('sample routing', () => {
  it('calls an async-values phase only for samples that carry a value', () => {
    const heardAsync: RunSample[] = [];
    const heardAll: RunSample[] = [];
    const follow: RunPhase = { name: 'follow', values: 'async', sample: (s) => heardAsync.push(s) };
    const plain: RunOutput = { name: 'plain', sample: (s) => heardAll.push(s) };
    const state = createRunState({ scenarios: ['s'], clock: createFakeClock(), runStartNs: 0, runStartWallMs: 0, objective: 0.999, listeners: [follow, plain] });
    const sc = state.scenarios[0];
    if (sc === undefined) throw new Error('no scenario');
    state.record(sc, ctx('listFlows'), ok({ flows: [] }), undefined, false);
    state.record(sc, ctx('run'), ok({ id: 'r1', status: 'completed' }), undefined, false);
    state.record(sc, ctx('run'), ok({ id: 'r2', status: 'running' }), undefined, false);
    expect(heardAll.map((s) => s.op)).toEqual(['listFlows', 'run', 'run']);
    expect(heardAsync.map((s) => (s.value as { id: string }).id)).toEqual(['r2']);
  });

  it('builds no sample when only an async-values phase listens and nothing is asynchronous', () => {
    let calls = 0;
    const follow: RunPhase = { name: 'follow', values: 'async', sample: () => calls++ };
    const state = createRunState({ scenarios: ['s'], clock: createFakeClock(), runStartNs: 0, runStartWallMs: 0, objective: 0.999, listeners: [follow] });
    const sc = state.scenarios[0];
    if (sc === undefined) throw new Error('no scenario');
    for (let i = 0; i < 10; i++) state.record(sc, ctx('listFlows'), ok({ flows: [] }), undefined, false);
    expect(calls).toBe(0);
  });

  it('reads values only for the operations a phase listed', () => {
    const seen: [string, unknown][] = [];
    const audit: RunPhase = { name: 'audit', values: ['run', 'stream', 'trigger'], sample: (s) => seen.push([s.op, s.value]) };
    const state = createRunState({ scenarios: ['s'], clock: createFakeClock(), runStartNs: 0, runStartWallMs: 0, objective: 0.999, listeners: [audit] });
    const sc = state.scenarios[0];
    if (sc === undefined) throw new Error('no scenario');
    let reads = 0;
    // A value getter, as a body identical to the last one has: reading it parses the page.
    const lazy = (value: unknown): ApiResult<unknown> =>
      ({ ok: true, meta, violations: [], get value() {
        reads++;
        return value;
      } }) as ApiResult<unknown>;
    state.record(sc, ctx('listFlows'), lazy({ flows: [] }), undefined, false);
    state.record(sc, ctx('getFlow'), lazy({ id: 'f' }), undefined, false);
    state.record(sc, ctx('run'), lazy({ id: 'r1', status: 'completed' }), undefined, false);
    expect(seen).toEqual([
      ['listFlows', undefined],
      ['getFlow', undefined],
      ['run', { id: 'r1', status: 'completed' }],
    ]);
    // The run's status is read once by the engine, its value once for the phase; the pages never.
    expect(reads).toBe(2);
  });
});
