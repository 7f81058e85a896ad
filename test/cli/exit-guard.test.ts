/**
 * The guard on `process.exit` while a scenario runs, when runs in one process (tests, a program
 * calling `main` twice) end in any order: the process's own `process.exit` comes back only when
 * the last guard goes, and never a guard of a run that has ended.
 */
import { describe, expect, it } from 'vitest';
import { guardProcessExit, ScenarioExitError } from '../../src/cli/exit-guard.js';

describe('guardProcessExit', () => {
  it.each(['older', 'newer'] as const)('two guards, the %s disposed first: the real exit is back after both', (firstGone) => {
    const real = process.exit;
    const older = guardProcessExit();
    const newer = guardProcessExit();
    expect(process.exit).not.toBe(real);
    const guards = { older, newer };
    guards[firstGone].dispose();
    // The other run still stands: a scenario's exit is still caught, and stops that run.
    const still = firstGone === 'older' ? newer : older;
    expect(() => process.exit(3)).toThrow(ScenarioExitError);
    expect(still.signal.aborted).toBe(true);
    guards[firstGone === 'older' ? 'newer' : 'older'].dispose();
    expect(process.exit).toBe(real);
  });

  it('one guard: its exit throws into the scenario and is recorded; disposed, the real exit is back', () => {
    const real = process.exit;
    const guard = guardProcessExit();
    expect(() => process.exit(4)).toThrow(ScenarioExitError);
    expect(guard.called?.code).toBe(4);
    guard.dispose();
    expect(process.exit).toBe(real);
  });

  it("process.exit handed to a timer (called from Node's own timers code) is still the scenario's: caught, recorded, the run stopped", async () => {
    const guard = guardProcessExit();
    try {
      await new Promise<void>((resolve) => {
        setTimeout(process.exit, 0, 5);
        setTimeout(resolve, 50);
      });
      expect(guard.called?.code).toBe(5);
      expect(guard.signal.aborted).toBe(true);
    } finally {
      guard.dispose();
    }
  });
});
