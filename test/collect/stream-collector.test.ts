import { describe, expect, it } from 'vitest';
import { createPromptLengthStats } from '../../src/collect/prompt-length.js';
import { createStreamCollector } from '../../src/collect/stream-collector.js';
import { MS, sample, streamTiming } from './samples.js';

/** Within HDR's 3 significant digits. */
function near(got: number, want: number): void {
  expect(Math.abs(got - want)).toBeLessThanOrEqual(want * 0.001 + 1e-9);
}

describe('stream collector', () => {
  it('computes time to start, TTFT, ITL, TPOT and tokens/s from the intended start', () => {
    const c = createStreamCollector();
    const t0 = 100 * MS;
    c.observe(
      sample({
        op: 'stream',
        intendedNs: t0,
        startNs: t0 + 5 * MS,
        endNs: t0 + 400 * MS,
        stream: streamTiming(t0, { firstByte: 40 * MS, start: 50 * MS, tokens: [200 * MS, 230 * MS, 290 * MS, 300 * MS], end: 400 * MS, usage: 4 }),
      }),
    );
    const s = c.snapshot();
    expect(s.count).toBe(1);
    expect(s.completed).toBe(1);
    expect(s.incomplete).toBe(0);
    expect(s.tokens).toBe(4);
    expect(s.tokenCountMismatches).toBe(0);
    near(s.ttfbMs.p50, 40);
    near(s.timeToStartMs.p50, 50);
    near(s.ttftMs.p50, 200);
    near(s.timeToEndMs.max, 400);
    expect(s.itlMs.count).toBe(3);
    near(s.itlMs.p50, 30);
    near(s.itlMs.max, 60);
    near(s.itlMs.mean, (30 + 60 + 10) / 3);
    // (end − first token) / (tokens − 1), per DESIGN.
    near(s.tpotMs.p50, 200 / 3);
    near(s.tokensPerS.p50, 4 / 0.2);
    expect(s.tokensPerS.count).toBe(1);
    expect(Object.keys(s.histograms).sort()).toEqual(
      ['stream.itl', 'stream.timeToEnd', 'stream.timeToStart', 'stream.tokensPerS', 'stream.tpot', 'stream.ttfb', 'stream.ttft'],
    );
  });

  it('counts incomplete streams, errors and token-count mismatches', () => {
    const c = createStreamCollector();
    c.observe(sample({ op: 'stream', stream: streamTiming(0, { start: 1 * MS, tokens: [2 * MS, 3 * MS, 4 * MS], end: 5 * MS, usage: 5 }) }));
    c.observe(sample({ op: 'stream', errorCode: 'STREAM_INCOMPLETE', stream: streamTiming(0, { start: 1 * MS, tokens: [2 * MS], end: 0, complete: false }) }));
    c.observe(sample({ op: 'stream', errorCode: 'STREAM_ERROR_EVENT', stream: streamTiming(0, { start: 1 * MS, tokens: [2 * MS, 4 * MS], end: 6 * MS }) }));
    // A 429 never opened a stream: not counted as one.
    c.observe(sample({ op: 'stream', status: 429, errorCode: 'RATE_LIMITED', stream: streamTiming(0, { start: 1, tokens: [], end: 0, complete: false }) }));
    const s = c.snapshot();
    expect(s.count).toBe(3);
    expect(s.completed).toBe(1);
    expect(s.incomplete).toBe(2);
    expect(s.tokens).toBe(6);
    expect(s.tokenCountMismatches).toBe(1);
    // TPOT only for streams of ≥ 2 tokens; tokens/s only for ended ones (the third ended with an error but had `end`).
    expect(s.tpotMs.count).toBe(2);
    expect(s.tokensPerS.count).toBe(2);
    expect(s.itlMs.count).toBe(3);
    expect(s.ttftMs.count).toBe(3);
  });

  it('counts streams whose tokens all arrived at one instant (not streamed), and only those', () => {
    const c = createStreamCollector();
    const at = (tokens: number[], end: number) =>
      sample({ op: 'stream', intendedNs: 0, startNs: 0, endNs: end, stream: streamTiming(0, { start: 10 * MS, tokens, end, usage: tokens.length }) });
    c.observe(at([300 * MS, 300 * MS, 300 * MS], 300 * MS)); // the whole answer in one read
    c.observe(at([200 * MS, 200 * MS, 260 * MS], 300 * MS)); // two together, then one more: streamed
    c.observe(at([50 * MS], 300 * MS)); // one token: nothing to tell
    const s = c.snapshot();
    expect(s.count).toBe(3);
    expect(s.deliveredAtOnce).toBe(1);
  });

  it('keeps a stream delivered at once out of ITL, TPOT and tokens/s, and counts it apart', () => {
    const c = createStreamCollector();
    // Nine streamed answers: 13 tokens 100/12 ms apart, `end` with the last, so 130 tokens/s each.
    const gap = (100 * MS) / 12;
    for (let i = 0; i < 9; i++) {
      const tokens = Array.from({ length: 13 }, (_, k) => 50 * MS + k * gap);
      c.observe(sample({ op: 'stream', intendedNs: 0, startNs: 0, endNs: 150 * MS, stream: streamTiming(0, { start: 10 * MS, tokens, end: 150 * MS, usage: 13 }) }));
    }
    // One answer of 20 tokens in one read, `end` 1.2 ms later: 16,667 tokens/s if it counted.
    const burst = Array.from({ length: 20 }, () => 400 * MS);
    c.observe(sample({ op: 'stream', intendedNs: 0, startNs: 0, endNs: 401.2 * MS, stream: streamTiming(0, { start: 10 * MS, tokens: burst, end: 401.2 * MS, usage: 20 }) }));
    const s = c.snapshot();
    expect(s.count).toBe(10);
    expect(s.deliveredAtOnce).toBe(1);
    expect(s.tokens).toBe(9 * 13 + 20);
    // TTFT and time to end still count every stream; the burst's TTFT is the largest.
    expect(s.ttftMs.count).toBe(10);
    near(s.ttftMs.max, 400);
    expect(s.timeToEndMs.count).toBe(10);
    // The rates are the nine streamed answers' only.
    expect(s.itlMs.count).toBe(9 * 12);
    near(s.itlMs.max, 100 / 12);
    expect(s.tpotMs.count).toBe(9);
    near(s.tpotMs.mean, 100 / 12);
    expect(s.tokensPerS.count).toBe(9);
    near(s.tokensPerS.mean, 130);
    near(s.tokensPerS.max, 130);
  });

  it('keeps a stream delivered at once out of its prompt band\'s ITL, TPOT and tokens/s too', () => {
    const p = createPromptLengthStats();
    const at = (tokens: number[], end: number) =>
      sample({ op: 'stream', inputTokens: 5, intendedNs: 0, startNs: 0, endNs: end, stream: streamTiming(0, { start: 10 * MS, tokens, end, usage: tokens.length }) });
    p.observe(at([100 * MS, 110 * MS, 120 * MS], 120 * MS));
    p.observe(at([300 * MS, 300 * MS, 300 * MS], 301 * MS));
    const band = Object.values(p.section().prompts?.words?.byBand ?? {});
    expect(band).toHaveLength(1);
    const b = band[0]!;
    expect(b.ttftMs.count).toBe(2);
    expect(b.itlMs.count).toBe(2);
    expect(b.tpotMs.count).toBe(1);
    near(b.tpotMs.p50, 10);
    expect(b.tokensPerS.count).toBe(1);
    near(b.tokensPerS.p50, 150);
  });

  it('reports empty summaries with no streams', () => {
    const c = createStreamCollector();
    c.observe(sample());
    const s = c.snapshot();
    expect(s.count).toBe(0);
    expect(s.ttftMs.count).toBe(0);
    expect(s.ttftMs.p99).toBe(0);
  });
});
