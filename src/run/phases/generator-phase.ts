/**
 * The generator watching itself: when flowgauge's own process was the limit (its event loop
 * blocked, its CPU near a full core), the figures include client-side delay, and the report
 * says so with what to change. Reads Node's own event-loop delay histogram and CPU usage; costs
 * nothing per request.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { RunWarning } from '../../report/index.js';
import type { RunPhase } from '../phase.js';

/** Limits beyond which the generator is said to have limited the load. */
export interface GeneratorLimits {
  /** Event-loop delay p99 above this (ms) means timers and arrivals were late (default 50). */
  readonly eventLoopP99Ms: number;
  /** Share of one core used by the process above which it is CPU-bound (default 0.9). */
  readonly cpuShare: number;
}

const DEFAULTS: GeneratorLimits = { eventLoopP99Ms: 50, cpuShare: 0.9 };

/** The generator's watch on itself; warns when a limit was passed. */
export function createGeneratorPhase(limits: Partial<GeneratorLimits> = {}): RunPhase {
  const l = { ...DEFAULTS, ...limits };
  const delay = monitorEventLoopDelay({ resolution: 10 });
  let cpuStart = process.cpuUsage();
  let wallStart = 0;
  let busyTicks = 0;
  let ticks = 0;
  let lastCpu = cpuStart;
  let lastWall = 0;
  const warnings: RunWarning[] = [];

  return {
    name: 'generator',
    start() {
      delay.enable();
      cpuStart = process.cpuUsage();
      lastCpu = cpuStart;
      wallStart = performance.now();
      lastWall = wallStart;
    },
    tick() {
      const now = performance.now();
      const cpu = process.cpuUsage(lastCpu);
      const share = (cpu.user + cpu.system) / 1000 / Math.max(1, now - lastWall);
      lastCpu = process.cpuUsage();
      lastWall = now;
      ticks++;
      if (share >= l.cpuShare) busyTicks++;
    },
    scheduleEnded() {
      delay.disable();
      const p99 = delay.percentile(99) / 1e6;
      if (delay.count > 0 && p99 > l.eventLoopP99Ms) {
        const tenth = (ms: number): number => Math.round(ms * 10) / 10;
        warnings.push({
          code: 'EVENT_LOOP_LAG',
          eventLoopDelayMs: { p99: tenth(p99), max: tenth(delay.max / 1e6) },
          message: `flowgauge's event loop was blocked (delay p99 ${p99.toFixed(1)} ms, max ${(delay.max / 1e6).toFixed(1)} ms): arrivals and timings include client-side delay; lower the rate or the work per request (fewer outputs, no --otel), or run shards on more machines`,
        });
      }
      const cpu = process.cpuUsage(cpuStart);
      const share = (cpu.user + cpu.system) / 1000 / Math.max(1, performance.now() - wallStart);
      if (ticks > 0 && busyTicks / ticks >= 0.5) {
        warnings.push({
          code: 'GENERATOR_CPU',
          message: `flowgauge used ${(share * 100).toFixed(0)} % of a core over the run (above ${(l.cpuShare * 100).toFixed(0)} % for ${busyTicks} of ${ticks} seconds): the client may have limited the load; split the run into shards (--shard i/N) on more cores or machines`,
        });
      }
    },
    warnings: () => warnings,
  };
}
