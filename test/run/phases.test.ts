/**
 * Outputs only consume; a phase owns its report section: it projects it from its own state once
 * it finished, the report takes it in its place, and the schedule's report (written before
 * anything may wait on the target) has none. A phase's warnings join the report's.
 */
import { describe, expect, it } from 'vitest';
import type { Report } from '../../src/report/index.js';
import type { RunOutput, RunPhase } from '../../src/run/index.js';
import { runAgainstService } from './helpers.js';

describe('phases and outputs', () => {
  it("a phase's section is its projection, after finishing; outputs hear both reports", async () => {
    const order: string[] = [];
    let scheduled: Report | undefined;
    let final: Report | undefined;
    const phase: RunPhase = {
      name: 'probe-phase',
      finish: () => void order.push('finish'),
      section: {
        key: 'audit',
        project: () => {
          order.push('project');
          return { incomplete: true };
        },
      },
      warnings: () => [{ code: 'PHASE_SAID', message: 'the phase said so' }],
    };
    const output: RunOutput = { name: 'watch', scheduleEnded: (r) => void (scheduled = r), end: (r) => void (final = r) };
    const r = await runAgainstService(
      { name: 'phases', tier: 'pro', load: { rate: '20/s', duration: '200ms' }, mix: [{ op: 'listFlows' }], thresholds: {} },
      { run: { follow: false, generator: false, phases: [phase], outputs: [output] } },
    );
    try {
      const { report } = r.outcome;
      expect(order).toEqual(['finish', 'project']);
      expect(report.audit).toEqual({ incomplete: true });
      expect(report.warnings?.find((w) => w.code === 'PHASE_SAID')?.message).toBe('the phase said so');
      expect(scheduled?.audit).toBeUndefined();
      expect(scheduled?.warnings?.some((w) => w.code === 'PHASE_SAID') ?? false).toBe(false);
      expect(final).toEqual(report);
    } finally {
      await r.close();
    }
  });
});
