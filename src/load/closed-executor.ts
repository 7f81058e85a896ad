/**
 * The closed model: `concurrency` workers, each starting its next job as soon as the last one
 * settles, so intended start = actual start. A job that settles synchronously would restart in
 * microtasks forever and starve timers; a restart budget sends every 1000th restart through a
 * timer (the next macrotask), which costs nothing measurable with real I/O.
 *
 * Workers start `STARTS_AT_ONCE` at once, then `STARTS_PER_SECOND` (docs/performance.md, "10,000
 * streams"). All 10,000 in one synchronous loop held the event loop for a fraction of a second;
 * 256 per turn of the loop still opened ~5,000 connections a second, and each batch's heads and
 * first tokens, arriving together, held it for 70–130 ms, stamping every answer that arrived
 * meanwhile that late. Each worker's first start is its intended start (a closed model has no
 * schedule to lag behind), so the ramp adds no latency to any request.
 *
 * Started at an offset into the schedule (a shard that joined late), the workers start at once
 * (on the same ramp) and stop at the schedule's end with everyone else's: they run that much
 * less, so the shard makes fewer iterations; a closed model has no arrivals to miss.
 */
import type { Clock, TimerHandle } from '../core/clock.js';
import { BaseExecutor } from './executor-base.js';
import type { Job } from './types.js';

const RESTART_BUDGET = 1000;
/** Workers started at once when the run begins (a run of a few hundred streams starts them all). */
export const STARTS_AT_ONCE = 256;
/** Workers started per second after the first `STARTS_AT_ONCE` (10,000 run in about 4 s). */
export const STARTS_PER_SECOND = 2500;
/** How often the ramp starts its next workers: 10 at a time at 2,500/s. */
const START_TICK_NS = 4e6;

/** Executor of `constant-concurrency`. */
export class ClosedExecutor extends BaseExecutor {
  private readonly concurrency: number;
  private budget = RESTART_BUDGET;
  private owed = 0;
  private endTimer: TimerHandle | undefined;
  private refillTimer: TimerHandle | undefined;
  private startTimer: TimerHandle | undefined;
  /** Workers not started yet (the ramp starts them). */
  private unstarted = 0;
  private readonly onStartMore = (): void => {
    this.startTimer = undefined;
    this.startBatch();
  };
  private readonly onEnd = (): void => {
    this.endTimer = undefined;
    this.endSchedule();
  };
  private readonly onRefill = (): void => {
    this.refillTimer = undefined;
    this.budget = RESTART_BUDGET;
    while (this.owed > 0 && this.state === 'running') {
      this.owed--;
      this.launchNow();
    }
  };

  constructor(clock: Clock, job: Job, concurrency: number, durationMs: number, startOffsetMs = 0) {
    super(clock, job, durationMs, startOffsetMs);
    this.concurrency = concurrency;
  }

  protected begin(): void {
    if (this.startOffsetNs >= this.durationMs * 1e6) {
      this.endSchedule();
      return;
    }
    this.endTimer = this.clock.setTimer(this.t0Ns + this.durationMs * 1e6, this.onEnd);
    this.unstarted = this.concurrency;
    this.startBatch();
  }

  protected cancelTimers(): void {
    this.endTimer = this.cancelTimer(this.endTimer);
    this.refillTimer = this.cancelTimer(this.refillTimer);
    this.startTimer = this.cancelTimer(this.startTimer);
    this.owed = 0;
    this.unstarted = 0;
  }

  /** Starts the workers due by now on the ramp (at most `STARTS_AT_ONCE` in one go, however late the tick). */
  private startBatch(): void {
    const now = this.clock.nowNs();
    const due = STARTS_AT_ONCE + Math.floor(((now - this.startedAtNs) * STARTS_PER_SECOND) / 1e9);
    for (let i = 0; i < STARTS_AT_ONCE && this.concurrency - this.unstarted < due && this.unstarted > 0 && this.state === 'running'; i++) {
      this.unstarted--;
      this.launchNow();
    }
    if (this.unstarted > 0 && this.state === 'running') this.startTimer = this.clock.setTimer(now + START_TICK_NS, this.onStartMore);
  }

  protected targetRateAt(): number {
    return 0;
  }

  protected override afterDone(): void {
    if (this.state !== 'running') {
      super.afterDone();
      return;
    }
    if (this.budget > 0) {
      this.budget--;
      this.launchNow();
      return;
    }
    this.owed++;
    this.refillTimer ??= this.clock.setTimer(this.clock.nowNs(), this.onRefill);
  }

  private launchNow(): void {
    this.launch(this.clock.nowNs(), 0);
  }
}
