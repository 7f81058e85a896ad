/**
 * What open and closed executors share: counters, the one AbortController of the run, the
 * lifecycle promises, drain, and the guarded hand-off of a job. The hot path (`launch`,
 * `onDone`) allocates nothing of its own: the completion handler is bound once.
 */
import { setMaxListeners } from 'node:events';
import type { Histogram } from 'hdr-histogram-js';
import type { Clock, TimerHandle } from '../core/clock.js';
import { NS_PER_MS } from '../core/clock.js';
import { InvalidArgumentError } from '../core/errors.js';
import { createLagRecorder, type LagRecorder } from './lag-recorder.js';
import { NOT_STARTED, type Executor, type ExecutorPhase, type ExecutorStats, type Job } from './types.js';

type State = 'idle' | 'running' | 'ended';

/** Base of the executors; subclasses drive `launch` from their schedule. */
export abstract class BaseExecutor implements Executor {
  readonly finished: Promise<void>;
  readonly scheduleEnded: Promise<void>;
  readonly durationMs: number;

  protected state: State = 'idle';
  /** The schedule's origin: `start()`'s instant less the start offset. */
  protected t0Ns = 0;
  /** Where in the schedule `start()` joined it, in ns (0 unless `startOffsetMs` was given). */
  protected readonly startOffsetNs: number;
  /** Arrivals due before the start offset, skipped (the open model counts them). */
  protected missed = 0;
  protected started = 0;
  protected dropped = 0;
  protected completed = 0;
  protected inFlight = 0;
  protected readonly clock: Clock;
  protected readonly lag: LagRecorder = createLagRecorder();

  private endedAtNs = 0;
  private isFinished = false;
  private readonly job: Job;
  private readonly controller = new AbortController();
  private resolveFinished!: () => void;
  private resolveScheduleEnded!: () => void;

  /** Bound once, so handing a job its completion handler allocates no closure. */
  protected readonly onDone = (): void => {
    this.inFlight--;
    this.completed++;
    this.afterDone();
  };

  protected constructor(clock: Clock, job: Job, durationMs: number, startOffsetMs = 0) {
    this.clock = clock;
    this.job = job;
    this.durationMs = durationMs;
    this.startOffsetNs = startOffsetMs * NS_PER_MS;
    // Every in-flight request listens on the run's one signal; thousands is the normal case,
    // not a leak.
    setMaxListeners(0, this.controller.signal);
    this.finished = new Promise((resolve) => (this.resolveFinished = resolve));
    this.scheduleEnded = new Promise((resolve) => (this.resolveScheduleEnded = resolve));
  }

  get scheduleLagHistogram(): Histogram {
    return this.lag.histogram;
  }

  start(): void {
    if (this.state !== 'idle') throw new InvalidArgumentError('executor already started');
    this.t0Ns = this.clock.nowNs() - this.startOffsetNs;
    this.state = 'running';
    this.begin();
  }

  stop(): void {
    if (this.state === 'ended') return;
    if (this.state === 'idle') this.t0Ns = this.clock.nowNs() - this.startOffsetNs;
    this.endSchedule();
  }

  drain(graceMs: number): Promise<void> {
    if (!(graceMs >= 0) || !Number.isFinite(graceMs)) {
      throw new InvalidArgumentError(`drain grace must be a finite number of ms >= 0, got ${graceMs}`);
    }
    this.stop();
    if (this.isFinished) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = this.clock.setTimer(this.clock.nowNs() + graceMs * NS_PER_MS, () => {
        this.controller.abort();
        resolve();
      });
      void this.finished.then(() => {
        this.clock.clearTimer(timer);
        resolve();
      });
    });
  }

  stats(): ExecutorStats {
    const startNs = this.startedAtNs;
    const now = this.state === 'ended' ? this.endedAtNs : this.state === 'running' ? this.clock.nowNs() : startNs;
    const elapsedNs = now - startNs;
    return {
      phase: this.phase(),
      started: this.started,
      dropped: this.dropped,
      completed: this.completed,
      inFlight: this.inFlight,
      scheduled: this.started + this.dropped,
      missed: this.missed,
      elapsedNs,
      scheduleLag: this.lag.summary(),
      targetRatePerS: this.state === 'idle' ? 0 : this.targetRateAt(this.startOffsetNs + elapsedNs),
    };
  }

  /** The instant `start()` (or a `stop()` before it) was called: the schedule's origin plus the start offset. */
  protected get startedAtNs(): number {
    return this.t0Ns + this.startOffsetNs;
  }

  /** Starts the schedule; `t0Ns` is set. */
  protected abstract begin(): void;
  /** Cancels the subclass's timers when the schedule ends. */
  protected abstract cancelTimers(): void;
  /** Target rate at `offsetNs` into the schedule (from its origin, start offset included). */
  protected abstract targetRateAt(offsetNs: number): number;

  /** Called after each completion; the closed model overrides it to start the next job. */
  protected afterDone(): void {
    if (this.inFlight === 0 && this.state === 'ended') this.finish();
  }

  /**
   * Hands one job its start (`lagNs` late), guarding against a job that throws or returns no
   * promise. A job that answers `NOT_STARTED` is taken back: neither started nor lagging.
   */
  protected launch(intendedNs: number, lagNs: number): void {
    this.inFlight++;
    this.started++;
    let p: unknown;
    try {
      p = this.job(intendedNs, this.controller.signal);
    } catch {
      this.lag.record(lagNs);
      this.onDone();
      return;
    }
    if (p === NOT_STARTED) {
      this.inFlight--;
      this.started--;
      // Not afterDone(): a closed-model worker whose job had nothing to start does not start another.
      if (this.inFlight === 0 && this.state === 'ended') this.finish();
      return;
    }
    this.lag.record(lagNs);
    if (p !== null && typeof p === 'object' && typeof (p as PromiseLike<unknown>).then === 'function') {
      (p as PromiseLike<unknown>).then(this.onDone, this.onDone);
    } else {
      this.onDone();
    }
  }

  /** Ends the schedule (duration elapsed or stop); in-flight jobs go on. */
  protected endSchedule(): void {
    if (this.state === 'ended') return;
    this.state = 'ended';
    this.endedAtNs = this.clock.nowNs();
    this.cancelTimers();
    this.resolveScheduleEnded();
    if (this.inFlight === 0) this.finish();
  }

  /** Clears a pending timer, if any; returns undefined to assign back to the handle field. */
  protected cancelTimer(handle: TimerHandle | undefined): undefined {
    if (handle !== undefined) this.clock.clearTimer(handle);
    return undefined;
  }

  private finish(): void {
    if (this.isFinished) return;
    this.isFinished = true;
    this.resolveFinished();
  }

  private phase(): ExecutorPhase {
    if (this.state === 'idle') return 'idle';
    if (this.state === 'running') return 'running';
    return this.isFinished ? 'finished' : 'draining';
  }
}
