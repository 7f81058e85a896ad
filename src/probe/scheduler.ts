/**
 * The probe schedule: rounds on a fixed grid, `origin + k × interval`, on an injected clock.
 * A round that overruns its interval (or a clock that jumped, e.g. after a laptop slept) makes
 * the scheduler **skip** the ticks it missed, counted, and carry on at the next grid point:
 * probes never run late in a burst to catch up, which would report a recovery that did not happen.
 */
import { NS_PER_MS, type Clock, type TimerHandle } from '../core/clock.js';
import { InvalidArgumentError } from '../core/errors.js';

const noop = (): void => undefined;

/** Options of `createProbeScheduler`. */
export interface ProbeSchedulerOptions {
  readonly clock: Clock;
  readonly intervalMs: number;
  /** Runs one round; `tick` counts grid points from 0, `intendedNs` is the grid instant. */
  readonly job: (tick: number, intendedNs: number) => Promise<void>;
}

/** A running schedule. */
export interface ProbeScheduler {
  /** Starts the grid at the current instant; the first round runs at once. */
  start(): void;
  /** Stops scheduling and waits for the round in flight. */
  stop(): Promise<void>;
  /** Resolves when no round is in flight. */
  whenIdle(): Promise<void>;
  /** Rounds started. */
  readonly fired: number;
  /** Grid points skipped because a round was still running or the clock jumped past them. */
  readonly skipped: number;
}

/** Creates a scheduler; nothing runs until `start()`. */
export function createProbeScheduler(options: ProbeSchedulerOptions): ProbeScheduler {
  const { clock, job } = options;
  if (!(Number.isFinite(options.intervalMs) && options.intervalMs > 0)) {
    throw new InvalidArgumentError(`probe interval must be a positive number of ms, got ${options.intervalMs}`);
  }
  const intervalNs = options.intervalMs * NS_PER_MS;
  let originNs = 0;
  let timer: TimerHandle | undefined;
  let running = false;
  let inFlight: Promise<void> | undefined;
  let fired = 0;
  let skipped = 0;

  const schedule = (tick: number): void => {
    timer = clock.setTimer(originNs + tick * intervalNs, () => onTick(tick));
  };

  const onTick = (tick: number): void => {
    timer = undefined;
    if (!running) return;
    // The timer may fire late; every grid point already passed besides this one is skipped.
    const late = Math.floor((clock.nowNs() - originNs) / intervalNs) - tick;
    const lateTicks = late > 0 ? late : 0;
    skipped += lateTicks;
    const current = tick + lateTicks;
    if (inFlight !== undefined) skipped++;
    else {
      fired++;
      let p: Promise<void>;
      try {
        p = job(current, originNs + current * intervalNs);
      } catch {
        p = Promise.resolve();
      }
      // Only one round is ever in flight, so clearing the slot when it settles is safe.
      inFlight = p.then(noop, noop).finally(() => {
        inFlight = undefined;
      });
    }
    schedule(current + 1);
  };

  return {
    start() {
      if (running) return;
      running = true;
      originNs = clock.nowNs();
      onTick(0);
    },
    async stop() {
      running = false;
      if (timer !== undefined) clock.clearTimer(timer);
      timer = undefined;
      await inFlight;
    },
    whenIdle: async () => {
      while (inFlight !== undefined) await inFlight;
    },
    get fired() {
      return fired;
    },
    get skipped() {
      return skipped;
    },
  };
}
