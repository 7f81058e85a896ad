import { describe, expect, it } from 'vitest';
import { formatProgress } from '../../src/cli/progress-line.js';
import type { RunProgress } from '../../src/run/index.js';

const base: RunProgress = {
  elapsedS: 12,
  totalS: 60,
  started: 24,
  completed: 20,
  dropped: 1,
  inFlight: 4,
  ratePerS: 2,
  p50Ms: 120,
  p99Ms: 480,
  errors: 3,
  responses429: 2,
};

describe('the progress line', () => {
  it('shows elapsed share, rate, in flight, percentiles, errors, 429s and drops', () => {
    const line = formatProgress(base);
    expect(line).toMatch(/^\s+12s\/60s\s+20%/);
    for (const part of ['rate 2.0/s', 'in flight 4', 'errors 3', '429s 2', 'dropped 1']) expect(line).toContain(part);
    expect(line).not.toContain('iterations');
  });

  it('shows how journey iterations end when the run has journeys', () => {
    expect(formatProgress({ ...base, iterations: { ended: 17, failed: 2 } })).toContain('iterations 17 (2 failed)');
  });
});
