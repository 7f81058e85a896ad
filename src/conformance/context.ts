/** What every probe of the battery shares: the exchange, the recorder, and what earlier probes found. */
import type { Clock } from '../core/clock.js';
import type { Exchange, ExchangeAnswer, ExchangeRequest } from './exchange.js';
import type { Recorder } from './recorder.js';
import { isRecord } from '../core/is-record.js';

export { isRecord };

/** Findings passed from probe to probe. */
export interface BatteryState {
  /** A published flow of the token's account. */
  flowId: string | undefined;
  /** Run ids the battery started (for notification matching). */
  readonly runIds: string[];
  /** `error` values of failed runs seen anywhere in the battery. */
  readonly failedErrors: unknown[];
  /** `progress` values seen in status reads, in order, per run. */
  readonly progress: number[][];
}

/** A probe's view of the battery. */
export interface ProbeContext {
  readonly x: Exchange;
  readonly rec: Recorder;
  readonly clock: Clock;
  readonly state: BatteryState;
  /** Sends, unless the request budget is spent or the battery halted (then resolves undefined). */
  send(req: ExchangeRequest): Promise<ExchangeAnswer | undefined>;
  /** True once the deadline passed or the battery was stopped: waits end early. */
  halted(): boolean;
}


/** `HTTP 400 INVALID_REQUEST (field limit)` style summary of an answer, for observations. */
export function outcomeOf(a: ExchangeAnswer | undefined): string {
  if (a === undefined) return 'not sent (the request budget, the deadline or a stop came first)';
  if (a.status === 0) return `no response (${a.transportError ?? 'error'})`;
  if (a.transportError !== undefined) return `HTTP ${a.status}, body not read whole (${a.transportError})`;
  const err = isRecord(a.json) && isRecord(a.json.error) ? a.json.error : undefined;
  if (err === undefined) return `HTTP ${a.status}`;
  const field = isRecord(err.details) && typeof err.details.field === 'string' ? ` (field ${err.details.field})` : '';
  return `HTTP ${a.status} ${typeof err.code === 'string' ? err.code : '(no code)'}${field}`;
}

/** The media type of a content type, lower case, without parameters. */
export function mediaType(ct: string | undefined): string {
  return (ct ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}

/** Whole-number sleep on the battery's clock. */
export function sleep(clock: Clock, ms: number): Promise<void> {
  return new Promise((resolve) => clock.setTimer(clock.nowNs() + ms * 1e6, resolve));
}
