import { describe, expect, it } from 'vitest';
import { TIER_LIMITS_PER_MINUTE, tierLabel, tierLimitPerMinute } from '../../src/core/tiers.js';
import { formatMs, parseDurationMs, parsePercent, parseRatePerS } from '../../src/core/units.js';

describe('parseDurationMs', () => {
  it('reads units and bare numbers as milliseconds', () => {
    const cases: [unknown, number][] = [
      ['500ms', 500],
      ['30s', 30_000],
      ['2m', 120_000],
      ['2min', 120_000],
      ['1h', 3_600_000],
      ['30d', 30 * 86_400_000],
      ['1.5s', 1500],
      [' 10 s ', 10_000],
      ['250', 250],
      ['100us', 0.1],
      ['100µs', 0.1],
      ['1000000ns', 1],
      [0, 0],
      [42.5, 42.5],
      // k6's and Go's compound form.
      ['1m30s', 90_000],
      ['1h2m', 3_720_000],
      ['1h2m3.5s', 3_723_500],
      ['2h', 7_200_000],
      ['1s500ms', 1500],
    ];
    for (const [input, ms] of cases) expect(parseDurationMs(input), String(input)).toBeCloseTo(ms, 9);
    // Decimal scaling is exact: 1.1 s is 1100 ms, not 1100.0000000000002.
    expect(parseDurationMs('1.1s')).toBe(1100);
  });

  it('returns undefined for anything else', () => {
    for (const input of ['', 'fast', '-1s', '1e3ms', '5 weeks', '1s2', 's', '1m 30s', '1m-30s', '1mx', '1.s', -1, Number.NaN, Infinity, null, undefined, {}, [], true]) {
      expect(parseDurationMs(input), String(input)).toBeUndefined();
    }
  });
});

describe('parseRatePerS', () => {
  it('reads per-second, per-minute and per-hour rates and plain numbers', () => {
    expect(parseRatePerS('100/min')).toBeCloseTo(100 / 60, 12);
    expect(parseRatePerS('16.7/s')).toBe(16.7);
    expect(parseRatePerS('5000/h')).toBeCloseTo(5000 / 3600, 12);
    expect(parseRatePerS('60 / minute')).toBe(1);
    expect(parseRatePerS('2/sec')).toBe(2);
    expect(parseRatePerS(12)).toBe(12);
    expect(parseRatePerS(0)).toBe(0);
  });

  it('returns undefined for unreadable or negative rates', () => {
    for (const input of ['fast', '100', '100/day', '-5/s', '/s', '100%', -1, Number.NaN, Infinity, null, {}]) {
      expect(parseRatePerS(input), String(input)).toBeUndefined();
    }
  });
});

describe('parsePercent', () => {
  it('reads percentages as fractions', () => {
    expect(parsePercent('100%')).toBe(1);
    expect(parsePercent('120%')).toBe(1.2);
    expect(parsePercent(' 99.9 % ')).toBeCloseTo(0.999, 12);
    for (const input of ['100', '%', '-5%', 'x%', 1, null]) expect(parsePercent(input), String(input)).toBeUndefined();
  });
});

describe('formatMs', () => {
  it('picks a unit for people', () => {
    expect(formatMs(0.85)).toBe('850µs');
    expect(formatMs(12.34)).toBe('12.3ms');
    expect(formatMs(250)).toBe('250ms');
    expect(formatMs(4200)).toBe('4.20s');
    expect(formatMs(185_000)).toBe('3m05s');
    expect(formatMs(Number.NaN)).toBe('NaN');
  });
});

describe('tiers', () => {
  it('gives the published limits and custom ones', () => {
    expect(tierLimitPerMinute('free')).toBe(100);
    expect(tierLimitPerMinute('pro')).toBe(1000);
    expect(tierLimitPerMinute({ limitPerMinute: 5000 })).toBe(5000);
    expect(TIER_LIMITS_PER_MINUTE).toEqual({ free: 100, pro: 1000 });
    expect(tierLabel('pro')).toBe('pro');
    expect(tierLabel({ limitPerMinute: 1 })).toBe('custom');
  });
});
