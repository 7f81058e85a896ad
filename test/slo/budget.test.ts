import { describe, expect, it } from 'vitest';
import {
  MULTIWINDOW_ALERTS,
  allowedDowntimeMinutes,
  availability,
  burnRate,
  errorBudget,
} from '../../src/slo/budget.js';

describe('budget', () => {
  it('99.9 % over 30 days allows 43.2 minutes', () => {
    expect(allowedDowntimeMinutes(0.999, 30)).toBe(43.2);
    expect(allowedDowntimeMinutes(0.99, 1)).toBe(14.4);
  });

  it('availability is good / (good + bad), undefined with no events', () => {
    expect(availability(999, 1)).toBe(0.999);
    expect(availability(0, 0)).toBeUndefined();
    expect(availability(0, 3)).toBe(0);
  });

  it('1 bad in 1000 at 99.9 % consumes exactly the budget, burn rate 1', () => {
    const b = errorBudget({ good: 999, bad: 1, objective: 0.999 });
    expect(b.availability).toBe(0.999);
    expect(b.errorRatio).toBe(0.001);
    expect(b.budgetConsumed).toBe(1);
    expect(b.burnRate).toBe(1);
    expect(b.allowedBadEvents).toBe(1);
  });

  it('burn rate scales with the error ratio: 1.44 % errors burn 14.4× at 99.9 %', () => {
    expect(burnRate(0.0144, 0.999)).toBe(14.4);
    const b = errorBudget({ good: 9856, bad: 144, objective: 0.999 });
    expect(b.burnRate).toBe(14.4);
    expect(b.budgetConsumed).toBe(14.4);
    expect(b.allowedBadEvents).toBe(10);
  });

  it('no events: nothing consumed, availability undefined', () => {
    const b = errorBudget({ good: 0, bad: 0, objective: 0.999 });
    expect(b).toEqual({ availability: undefined, errorRatio: 0, budgetConsumed: 0, burnRate: 0, allowedBadEvents: 0 });
  });

  it('rejects objectives outside (0, 1)', () => {
    expect(() => errorBudget({ good: 1, bad: 0, objective: 1 })).toThrow(/objective/);
    expect(() => allowedDowntimeMinutes(99.9, 30)).toThrow(/objective/);
    expect(() => allowedDowntimeMinutes(0.999, 0)).toThrow(/periodDays/);
  });

  it('holds the SRE workbook multiwindow table', () => {
    expect(MULTIWINDOW_ALERTS.map((a) => [a.severity, a.long, a.short, a.burnRate])).toEqual([
      ['page', '1h', '5m', 14.4],
      ['page', '6h', '30m', 6],
      ['ticket', '1d', '2h', 3],
      ['ticket', '3d', '6h', 1],
    ]);
    for (const a of MULTIWINDOW_ALERTS) {
      expect(a.shortMs * 12).toBe(a.longMs);
      // burn rate × long window / 30 days = budget spent when the alert fires
      expect(a.burnRate * (a.longMs / (30 * 24 * 3_600_000))).toBeCloseTo(a.budgetSpent, 9);
    }
  });
});
