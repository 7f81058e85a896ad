/**
 * The closed model: `concurrency` workers, each starting its next job as soon as the last one
 * settles, so intended start = actual start. A job that settles synchronously would restart in
 * microtasks forever and starve timers; a restart budget sends every 1000th restart through a
 * timer (the next macrotask), which costs nothing measurable with real I/O.
 */
import type { Clock, TimerHandle } from '../core/clock.js';
import { BaseExecutor } from './executor-base.js';
import type { Job } from './types.js';

const RESTART_BUDGET = 1000;

/** Executor of `constant-concurrency`. */
export class ClosedExecutor extends BaseExecutor {
  private readonly concurrency: number;
  private budget = RESTART_BUDGET;
  private owed = 0;
  private endTimer: TimerHandle | undefined;
  private refillTimer: TimerHandle | undefined;
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
    for (let i = 0; i < this.concurrency && this.state === 'running'; i++) this.launchNow();
  }

  protected cancelTimers(): void {
    this.endTimer = this.cancelTimer(this.endTimer);
    this.refillTimer = this.cancelTimer(this.refillTimer);
    this.owed = 0;
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
