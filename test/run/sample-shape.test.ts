/**
 * Every `RunSample` must share one hidden class: observers read a few fields of each sample on
 * the hot path, and a map per sample turned those reads megamorphic (about 40 µs and 57 MB a
 * request at full rate). V8's `%HaveSameMap` is reached through `--allow-natives-syntax`, set at
 * run time; the natives call is compiled after the flag is on.
 */
import { setFlagsFromString } from 'node:v8';
import { describe, expect, it } from 'vitest';
import type { RequestSample, SliClass, Verdict } from '../../src/core/types.js';
import { runSample, type SampleContext } from '../../src/run/sample.js';

setFlagsFromString('--allow-natives-syntax');
// eslint-disable-next-line @typescript-eslint/no-implied-eval -- natives syntax only parses in code compiled after the flag.
const haveSameMap = new Function('a', 'b', 'return %HaveSameMap(a, b);') as (a: object, b: object) => boolean;

const verdict = (sli: SliClass): Verdict => ({ sli, throttle: 'none' });

function input(i: number): { ctx: SampleContext; sample: RequestSample } {
  const stream = i % 3 === 0;
  const ctx: SampleContext = {
    scenario: i % 2 === 0 ? 'a' : 'b',
    op: stream ? 'stream' : 'run',
    flowId: i % 5 === 0 ? undefined : `flow-${i % 7}`,
    negative: i % 11 === 0,
    intendedNs: i * 1000,
    step: i % 4 === 0 ? 'step' : undefined,
    sessionId: i % 6 === 0 ? `s-${i}` : undefined,
    input: stream ? `hello world ${i}` : undefined,
  };
  const sample: RequestSample = {
    op: ctx.op,
    flowId: ctx.flowId,
    intendedNs: ctx.intendedNs,
    startNs: ctx.intendedNs + 10,
    headersNs: i % 9 === 0 ? undefined : ctx.intendedNs + 500,
    endNs: ctx.intendedNs + 900 + i,
    sentNs: ctx.intendedNs + 20,
    connectNs: i % 50 === 0 ? 300 : 0,
    tlsNs: 0,
    status: i % 9 === 0 ? 0 : 200,
    errorCode: i % 9 === 0 ? 'TIMEOUT' : undefined,
    rateLimit: undefined,
    violations: [],
    negative: ctx.negative,
    runStatus: stream ? undefined : 'completed',
    stream: undefined,
    inputTokens: stream ? 3 : undefined,
    outputTokens: stream ? 7 : undefined,
    tokenUnit: stream ? 'words' : undefined,
    outsideSlo: undefined,
    otherOrigin: undefined,
  };
  return { ctx, sample };
}

describe('runSample', () => {
  it('gives 1,000 consecutive samples one hidden class', () => {
    const samples = Array.from({ length: 1000 }, (_, i) => {
      const { ctx, sample } = input(i);
      return runSample(ctx, sample, verdict(i % 13 === 0 ? 'bad' : 'good'), i % 2 === 0 ? { id: `r${i}` } : undefined);
    });
    const first = samples[0] as object;
    const shared = samples.filter((s) => haveSameMap(first, s)).length;
    expect(shared).toBe(1000);
  });

  it('carries every field of the request sample and its context, frozen', () => {
    const { ctx, sample } = input(3);
    const s = runSample(ctx, sample, verdict('good'), 'v');
    expect(Object.isFrozen(s)).toBe(true);
    expect(s).toEqual({ ...sample, scenario: ctx.scenario, verdict: verdict('good'), step: ctx.step, sessionId: ctx.sessionId, input: ctx.input, value: 'v' });
  });
});
