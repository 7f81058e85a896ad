import { describe, expect, it } from 'vitest';
import { deriveOnceInterval, MAX_DERIVED_INTERVAL_MS } from '../../src/probe/index.js';
import { record } from './helpers.js';

const NOW = Date.parse('2026-11-22T12:00:00.000Z');

describe('deriveOnceInterval', () => {
  it('takes the longest gap since the previous record of each check run now', () => {
    const previous = [
      record({ timeMs: NOW - 120_000, check: 'listFlows' }),
      record({ timeMs: NOW - 60_000, check: 'listFlows' }),
      record({ timeMs: NOW - 61_000, check: 'run' }),
      // A check not run now does not count.
      record({ timeMs: NOW - 600_000, check: 'stream' }),
    ];
    expect(deriveOnceInterval(previous, ['listFlows', 'run'], NOW)).toEqual({ ok: true, intervalMs: 61_000, previousAt: new Date(NOW - 61_000).toISOString() });
  });

  it('derives nothing without a previous record, from one over an hour old, or from one under a second old', () => {
    expect(deriveOnceInterval([], ['listFlows'], NOW)).toEqual({ ok: false, reason: 'no-previous' });
    expect(deriveOnceInterval([record({ timeMs: NOW - MAX_DERIVED_INTERVAL_MS - 1 })], ['listFlows'], NOW)).toMatchObject({ ok: false, reason: 'too-old' });
    expect(deriveOnceInterval([record({ timeMs: NOW - 500 })], ['listFlows'], NOW)).toMatchObject({ ok: false, reason: 'too-recent' });
    // A record from the future (a clock step) is not "previous".
    expect(deriveOnceInterval([record({ timeMs: NOW + 60_000 })], ['listFlows'], NOW)).toEqual({ ok: false, reason: 'no-previous' });
  });
});
