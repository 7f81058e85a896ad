/**
 * The open model's timer loop: on each wake, start every arrival whose instant has come (each
 * with its own intended time, catching up after a late wake), then set ONE timer for the next.
 * An arrival that finds `maxInFlight` jobs in flight is dropped and counted, never delayed.
 * Started at an offset into the schedule (a shard that joined late), the arrivals before it
 * are skipped and counted as missed: sending them at once would be a burst no schedule asked for.
 */
import type { Clock, TimerHandle } from '../core/clock.js';
import { BaseExecutor } from './executor-base.js';
import type { ArrivalSchedule } from './schedules.js';
import type { Job } from './types.js';

/** Executor for any open-model schedule. */
export class OpenExecutor extends BaseExecutor {
  private readonly schedule: ArrivalSchedule;
  private readonly maxInFlight: number;
  private nextOffsetNs = Infinity;
  private timer: TimerHandle | undefined;
  private readonly onTimer = (): void => {
    this.timer = undefined;
    this.wake();
  };

  constructor(clock: Clock, job: Job, schedule: ArrivalSchedule, maxInFlight: number, startOffsetMs = 0) {
    super(clock, job, schedule.durationNs / 1e6, startOffsetMs);
    this.schedule = schedule;
    this.maxInFlight = maxInFlight;
  }

  protected begin(): void {
    let next = this.schedule.next();
    // Each skipped instant is computed as a sent one would be, so the first one sent is in phase.
    while (next < this.startOffsetNs) {
      this.missed++;
      next = this.schedule.next();
    }
    this.nextOffsetNs = next;
    this.wake();
  }

  protected cancelTimers(): void {
    this.timer = this.cancelTimer(this.timer);
  }

  protected targetRateAt(offsetNs: number): number {
    return this.schedule.rateAt(Math.min(offsetNs, this.schedule.durationNs));
  }

  private wake(): void {
    if (this.state !== 'running') return;
    const clock = this.clock;
    const t0 = this.t0Ns;
    // One reading bounds the catch-up, so a slow job cannot keep this loop from yielding.
    const now = clock.nowNs();
    let offset = this.nextOffsetNs;
    while (t0 + offset <= now && this.state === 'running') {
      const intended = t0 + offset;
      if (this.inFlight >= this.maxInFlight) {
        this.dropped++;
      } else {
        this.launch(intended, clock.nowNs() - intended);
      }
      offset = this.schedule.next();
    }
    this.nextOffsetNs = offset;
    const endNs = t0 + this.schedule.durationNs;
    if (now >= endNs) {
      this.endSchedule();
      return;
    }
    // A job may have called stop() synchronously.
    if (this.state !== 'running') return;
    this.timer = clock.setTimer(offset === Infinity ? endNs : t0 + offset, this.onTimer);
  }
}
