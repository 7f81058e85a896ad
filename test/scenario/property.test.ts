import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { OPS } from '../../src/core/ops.js';
import { ConfigError } from '../../src/core/errors.js';
import { resolveScenario } from '../../src/scenario/index.js';

function onlyConfigErrors(raw: unknown, overrides?: unknown): void {
  try {
    resolveScenario(raw, overrides as never);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    expect(err.issues.length).toBeGreaterThan(0);
    for (const issue of err.issues) {
      expect(typeof issue.path).toBe('string');
      expect(issue.message.length).toBeGreaterThan(0);
    }
  }
}

const anyValue = fc.anything({ withBigInt: true, withNullPrototype: true, withMap: true, withDate: true, withSparseArray: true });

// Values near the valid shape, so the search reaches deep paths rather than failing at the root.
const rateLike = fc.oneof(fc.constantFrom('100/min', '16.7/s', '120%', '0%', 'fast', '', '1e400/s'), fc.double(), anyValue);
const durationLike = fc.oneof(fc.constantFrom('30s', '2m', '0', '-1s', '9'.repeat(400), 'forever'), fc.double(), anyValue);
const nearScenario = fc.record(
  {
    name: fc.oneof(fc.constantFrom('demo', 'Bad Name', ''), anyValue),
    tier: fc.oneof(fc.constantFrom('free', 'pro', 'gold'), fc.record({ limitPerMinute: fc.double() }), anyValue),
    load: fc.oneof(
      fc.record(
        {
          executor: fc.oneof(fc.constantFrom('constant-arrival-rate', 'ramping-arrival-rate', 'poisson', 'constant-concurrency', 'x'), anyValue),
          rate: rateLike,
          duration: durationLike,
          stages: fc.oneof(fc.array(fc.record({ duration: durationLike, target: rateLike }, { requiredKeys: [] })), anyValue),
          concurrency: fc.oneof(fc.integer(), fc.double()),
          burstiness: fc.double(),
          maxInFlight: fc.oneof(fc.integer(), fc.double()),
          gracefulStop: durationLike,
        },
        { requiredKeys: [] },
      ),
      anyValue,
    ),
    mix: fc.oneof(
      fc.array(
        fc.record(
          {
            op: fc.oneof(fc.constantFrom(...OPS, 'runn'), anyValue),
            weight: fc.oneof(fc.double(), anyValue),
            flowId: anyValue,
            input: anyValue,
            query: anyValue,
            negative: anyValue,
          },
          { requiredKeys: [] },
        ),
      ),
      anyValue,
    ),
    thresholds: fc.oneof(fc.dictionary(fc.string(), fc.oneof(fc.string(), anyValue)), anyValue),
    seed: anyValue,
    slo: anyValue,
    extra: anyValue,
  },
  { requiredKeys: [] },
);

describe('resolveScenario (property)', () => {
  it('throws nothing but ConfigError for any value at all', () => {
    fc.assert(fc.property(anyValue, (raw) => onlyConfigErrors(raw)), { numRuns: 500 });
  });

  it('throws nothing but ConfigError for near-valid scenarios and any overrides', () => {
    const overrides = fc.oneof(
      fc.record({ durationMs: anyValue, rate: anyValue, tier: anyValue, maxInFlight: anyValue }, { requiredKeys: [] }),
      anyValue,
    );
    fc.assert(fc.property(nearScenario, overrides, (raw, o) => onlyConfigErrors(raw, o)), { numRuns: 500 });
  });

  it('resolves valid scenarios with weights summing to 1 and finite loads', () => {
    const valid = fc.record({
      name: fc.stringMatching(/^[a-z0-9-]{1,20}$/),
      tier: fc.constantFrom('free', 'pro'),
      load: fc.record({ rate: fc.integer({ min: 1, max: 200 }).map((p) => `${p}%`), duration: fc.integer({ min: 1, max: 3600 }).map((s) => `${s}s`) }),
      mix: fc.array(fc.record({ op: fc.constantFrom(...OPS), weight: fc.double({ min: 0.001, max: 1000, noNaN: true }) }), { minLength: 1, maxLength: 9 }),
    });
    fc.assert(
      fc.property(valid, (raw) => {
        const s = resolveScenario(raw);
        const sum = s.mix.reduce((a, e) => a + e.weight, 0);
        expect(sum).toBeCloseTo(1, 9);
        expect(s.load.executor).toBe('constant-arrival-rate');
        if (s.load.executor === 'constant-arrival-rate') expect(Number.isFinite(s.load.ratePerS) && s.load.ratePerS > 0).toBe(true);
      }),
      { numRuns: 200 },
    );
  });
});
