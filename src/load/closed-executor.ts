/**
 * The closed model: `concurrency` workers, each starting its next job as soon as the last one
 * settles, so intended start = actual start. A job that settles synchronously would restart in
 * microtasks forever and starve timers; a restart budget sends every 1000th restart through a
 * timer (the next macrotask), which costs nothing measurable with real I/O.
 *
 * Workers start `STARTS_PER_TURN` at a time, one batch per turn of the event loop: 10,000
 * workers started in one synchronous loop held the loop for a fraction of a second, and
 * every answer that arrived meanwhile was stamped late. Each worker's first start is still
 * its intended start (a closed model has no schedule to lag behind).
 */
import type { Clock, TimerHandle } from '../core/clock.js';
import { BaseExecutor } from './executor-base.js';
import type { Job } from './types.js';

const RESTART_BUDGET = 1000;
/** Workers started in one turn of the event loop at most. */
export const STARTS_PER_TURN = 256;

/** Executor of `constant-concurrency`. */
export class ClosedExecutor extends BaseExecutor {
  private readonly concurrency: number;
  private budget = RESTART_BUDGET;
  private owed = 0;
  private endTimer: TimerHandle | undefined;
  private refillTimer: TimerHandle | undefined;
  private startTimer: TimerHandle | undefined;
  /** Workers not started yet (the first turns start them in batches). */
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

  constructor(clock: Clock, job: Job, concurrency: number, durationMs: number) {
    super(clock, job, durationMs);
    this.concurrency = concurrency;
  }

  protected begin(): void {
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

  private startBatch(): void {
    for (let i = 0; i < STARTS_PER_TURN && this.unstarted > 0 && this.state === 'running'; i++) {
      this.unstarted--;
      this.launchNow();
    }
    if (this.unstarted > 0 && this.state === 'running') this.startTimer = this.clock.setTimer(this.clock.nowNs(), this.onStartMore);
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
