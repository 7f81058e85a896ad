/**
 * `flowgauge run --start-at <ISO time>` (or `FLOWGAUGE_START_AT`): every shard of a distributed
 * run, and every worker of each, holds its clock until one wall-clock instant, so the shards run
 * side by side and their merge is the load the scenario describes. The time is checked before
 * anything starts; the wait itself is the engine's `ready` hook (after the targets are prepared,
 * so preparing does not delay one shard's schedule behind another's), on a `Clock`. A shard that
 * comes up after the instant joins the schedule in phase (the engine, `startAtMs`): only a time
 * past the scenario's whole duration, when nothing would be left to send, is refused.
 */
import type { Clock } from '../core/clock.js';
import { FlowgaugeError } from '../core/errors.js';
import { loadDurationMs } from '../load/index.js';
import { JOIN_LATE_AFTER_MS } from '../run/run-shard.js';
import type { ResolvedRunPlan } from '../scenario/index.js';
import { UsageError } from './context.js';
import type { TextSink } from './io.js';
/** The furthest ahead a start may be. */
export const START_AT_AHEAD_MS = 24 * 3600 * 1000;

/** An instant to start at, and how it was given (for messages). */
export interface StartAt {
  readonly atMs: number;
  /** `--start-at "…"` or `FLOWGAUGE_START_AT="…"`, as typed. */
  readonly given: string;
}

/** ISO 8601 date and time with seconds optional, fractions allowed, and a zone required (Z or ±hh:mm). */
const ISO_WITH_ZONE = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:[Zz]|[+-]\d{2}:?\d{2})$/;

const isoSeconds = (ms: number): string => new Date(Math.ceil(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');

/** Seconds for a message: `0.4 s`, `12 s`, `3 min 20 s`, `5 h 2 min`. */
export function spanText(ms: number): string {
  const s = Math.abs(ms) / 1000;
  if (s < 9.95) return `${s.toFixed(1)} s`;
  const whole = Math.round(s);
  if (whole < 60) return `${whole} s`;
  if (whole < 3600) return `${Math.floor(whole / 60)} min ${whole % 60} s`;
  const minutes = Math.round(s / 60);
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

/**
 * The start of `--start-at` (the flag wins over `FLOWGAUGE_START_AT`; an empty variable is
 * unset), checked against `nowMs`: a `UsageError` (exit 2) for a value that is not an ISO 8601
 * time with a zone, that lies `durationMs` (the scenario's whole schedule) or more in the past,
 * or more than `START_AT_AHEAD_MS` ahead. A time less in the past is allowed: the run joins its
 * schedule in phase.
 */
export function parseStartAt(flag: string | undefined, env: string | undefined, nowMs: number, durationMs: number): StartAt | undefined {
  const value = flag ?? (env === undefined || env.trim() === '' ? undefined : env);
  if (value === undefined) return undefined;
  const given = flag !== undefined ? `--start-at "${flag}"` : `FLOWGAUGE_START_AT="${value}"`;
  const example = isoSeconds(nowMs + 120_000);
  const allowed = `give an ISO 8601 time with its zone, up to ${START_AT_AHEAD_MS / 3_600_000} h ahead (one already past, by less than the scenario's ${spanText(durationMs)}, joins the run in phase), e.g. ${example} for 2 minutes from now`;
  const m = ISO_WITH_ZONE.exec(value.trim());
  const atMs = m === null ? Number.NaN : Date.parse(value.trim());
  // Date.parse rolls 31 February over into March: the fields must survive the round trip.
  const fieldsHold = m !== null && Number(m[2]) >= 1 && Number(m[2]) <= 12 && Number(m[3]) >= 1 && Number(m[3]) <= new Date(Date.UTC(Number(m[1]), Number(m[2]), 0)).getUTCDate() && Number(m[4]) <= 23 && Number(m[5]) <= 59 && Number(m[6] ?? 0) <= 59;
  if (!Number.isFinite(atMs) || !fieldsHold) throw new UsageError(`${given} is not a time; ${allowed}`);
  const aheadMs = atMs - nowMs;
  if (-aheadMs >= durationMs && -aheadMs > JOIN_LATE_AFTER_MS) {
    throw new UsageError(`${given} is ${spanText(aheadMs)} in the past (now is ${new Date(nowMs).toISOString()}), past the scenario's whole ${spanText(durationMs)}: nothing would be left to send; ${allowed}`);
  }
  if (aheadMs > START_AT_AHEAD_MS) throw new UsageError(`${given} is ${spanText(aheadMs)} ahead, more than ${START_AT_AHEAD_MS / 3_600_000} h; ${allowed}`);
  return { atMs, given };
}

/** The whole schedule of a plan in ms: its latest scenario's start and length. */
export function planScheduleMs(plan: ResolvedRunPlan): number {
  return Math.max(0, ...plan.scenarios.map((s) => (s.startAfterMs ?? 0) + loadDurationMs(s.load)));
}

/** What a wait says while it goes on. */
export interface StartWaitEvents {
  /** About once a second while waiting, with what is left (ms). */
  readonly onWaiting?: (leftMs: number) => void;
}

/**
 * Resolves at wall-clock instant `atMs` of `clock` (to within a timer's precision: the last
 * millisecond is waited out on immediates), with how late it found the instant already past
 * when called (0 when it waited). Rejects with `FG_INTERRUPTED` (exit 130, nothing ran) when
 * `signal` aborts first. Sleeps a second at a time, so a countdown can be shown.
 */
export function waitForStart(atMs: number, clock: Clock, signal: AbortSignal | undefined, what: string, events: StartWaitEvents = {}): Promise<{ readonly lateMs: number }> {
  const interrupted = (): FlowgaugeError => new FlowgaugeError('FG_INTERRUPTED', `interrupted while waiting for ${what}: nothing ran, no report written`);
  return new Promise((resolve, reject) => {
    if (signal?.aborted === true) {
      reject(interrupted());
      return;
    }
    const firstLeftMs = atMs - clock.wallMs();
    let timer: ReturnType<Clock['setTimer']> | undefined;
    let lastShownS = Number.NaN;
    const onAbort = (): void => {
      if (timer !== undefined) clock.clearTimer(timer);
      reject(interrupted());
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    const check = (): void => {
      const leftMs = atMs - clock.wallMs();
      if (leftMs <= 0) {
        signal?.removeEventListener('abort', onAbort);
        resolve({ lateMs: firstLeftMs < 0 ? -firstLeftMs : 0 });
        return;
      }
      const shownS = Math.ceil(leftMs / 1000);
      if (shownS !== lastShownS) {
        lastShownS = shownS;
        events.onWaiting?.(leftMs);
      }
      // To the next whole second left (or the instant itself), so the countdown ticks on time.
      const stepMs = leftMs % 1000 === 0 ? 1000 : leftMs % 1000;
      timer = clock.setTimer(clock.nowNs() + stepMs * 1e6, check);
    };
    check();
  });
}

/** Where a gate says what it does. */
export interface StartGateOptions {
  readonly startAt: StartAt;
  readonly clock: Clock;
  /** The run's stop (Ctrl-C): while waiting it cancels the run before anything is sent. */
  readonly signal: AbortSignal;
  /** The run's log (stdout, or stderr with --json). */
  readonly log: TextSink;
  readonly stderr: TextSink;
  /** Redraw a countdown in place (a terminal, not --quiet, not --json). */
  readonly countdown: boolean;
  /** `shard i/N  ` or empty. */
  readonly tag: string;
}

/**
 * The `ready` hook of a run with `--start-at`: says it waits (a line; a countdown on a terminal,
 * a line a minute otherwise), holds until the instant, and says so when it found it already past.
 */
export function createStartGate(o: StartGateOptions): () => Promise<void> {
  return async () => {
    const at = new Date(o.startAt.atMs).toISOString();
    const leftMs = o.startAt.atMs - o.clock.wallMs();
    if (leftMs > 0) o.log.write(`flowgauge: ${o.tag}waiting until ${at} to start (${o.startAt.given}), ${spanText(leftMs)} from now\n`);
    let drawn = false;
    let lastLineMs = leftMs;
    try {
      const { lateMs } = await waitForStart(o.startAt.atMs, o.clock, o.signal, o.startAt.given, {
        onWaiting: (left) => {
          if (o.countdown) {
            drawn = true;
            o.log.write(`\r\x1b[2K${o.tag}waiting for the start at ${at}: ${spanText(left)}`);
          } else if (lastLineMs - left >= 60_000) {
            lastLineMs = left;
            o.log.write(`flowgauge: ${o.tag}still waiting for the start at ${at}: ${spanText(left)} left\n`);
          }
        },
      });
      if (lateMs >= 1) {
        // The engine joins the schedule in phase beyond JOIN_LATE_AFTER_MS; within it the schedule starts now, shifted.
        const why =
          lateMs > JOIN_LATE_AFTER_MS
            ? `: it joins the schedule ${spanText(lateMs)} in, in phase with the shards that started on time; the arrivals already due are not sent (load.missed, said in the report and by the merge)`
            : '';
        o.stderr.write(`flowgauge: ${o.tag}started ${spanText(lateMs)} after ${o.startAt.given}${why}\n`);
      }
    } finally {
      if (drawn) o.log.write('\r\x1b[2K');
    }
  };
}
