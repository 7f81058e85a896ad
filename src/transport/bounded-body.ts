/**
 * The one bound on every body flowgauge reads, whichever command reads it: a byte cap and a
 * whole-body deadline that never restarts (undici's `bodyTimeout` and Node's socket timeouts
 * restart on every chunk, so a target that trickles a byte at a time holds them forever).
 *
 * A body past the cap fails with `FG_BODY_TOO_LARGE` (classified `MALFORMED_BODY`), a body not
 * complete by the deadline with `FG_REQUEST_DEADLINE` (classified `TIMEOUT`): the same codes the
 * client's own transports raise, so `run`, `probe`, `conformance`, `capacity` and the receivers
 * name the same failure the same way (`classifyTransportError`).
 */
import { NS_PER_MS, type Clock, type TimerHandle } from '../core/clock.js';
import { bodyTooLarge } from './wire-errors.js';
import { deadlineError, decodeBody } from './transport.js';

/** Largest buffered body (a JSON answer, an error page): the client's `maxBodyBytes` default. */
export const MAX_BODY_BYTES = 16 * 1024 * 1024;

/**
 * Most bytes one streamed body may carry. It bounds everything a stream keeps: an endless
 * `data:` line the SSE parser holds, the output text and the inter-token gaps (a long LLM answer
 * is well under 1 MiB).
 */
export const MAX_STREAM_BYTES = 16 * 1024 * 1024;

/**
 * Counts the bytes of a body taken chunk by chunk (a stream decoded as it arrives). `take`
 * returns the error to fail with once the body passes its cap, and keeps returning it.
 */
export class ByteBudget {
  private used = 0;
  private over: Error | undefined = undefined;

  constructor(readonly max: number) {}

  /** Bytes taken so far. */
  get bytes(): number {
    return this.used;
  }

  /** Adds `n` bytes; undefined while within the cap, else the `FG_BODY_TOO_LARGE` error. */
  take(n: number): Error | undefined {
    if (this.over !== undefined) return this.over;
    this.used += n;
    if (this.used > this.max) this.over = bodyTooLarge(this.max);
    return this.over;
  }
}

/** A body source: a Node `Readable`, undici's body, or any async iterable of byte chunks. */
export interface BodySource extends AsyncIterable<Uint8Array | string> {
  destroy?(err?: Error): unknown;
}

/** Bounds of `readBoundedBody`. */
export interface BodyBounds {
  /** Largest body in bytes (default `MAX_BODY_BYTES`). */
  readonly maxBytes?: number;
  /** The clock the deadline is on. */
  readonly clock: Clock;
  /**
   * The instant (`clock.nowNs()` ns) the whole body must have arrived by; undefined: none.
   * Give the request's own deadline, so waiting for the head and reading the body share it.
   */
  readonly deadlineNs?: number;
  /** The deadline's length, for the error message. */
  readonly deadlineMs?: number;
}

/** A body read whole, or why it was not. */
export type BoundedBody =
  | { readonly ok: true; readonly text: string; readonly bytes: number }
  | { readonly ok: false; readonly error: unknown; readonly bytes: number };

/**
 * Reads `source` whole within `bounds`, decoded as UTF-8 (a BOM dropped). Never rejects: a
 * body over the cap, past the deadline or broken arrives as `{ ok: false, error }`, and the
 * source is destroyed so the connection under it lets go at once.
 */
export async function readBoundedBody(source: BodySource, bounds: BodyBounds): Promise<BoundedBody> {
  const budget = new ByteBudget(bounds.maxBytes ?? MAX_BODY_BYTES);
  const { clock } = bounds;
  const chunks: Buffer[] = [];
  let expired: Error | undefined;
  let timer: TimerHandle | undefined;
  let wake: (() => void) | undefined;
  if (bounds.deadlineNs !== undefined) {
    const ms = bounds.deadlineMs ?? Math.max(0, Math.round((bounds.deadlineNs - clock.nowNs()) / NS_PER_MS));
    const fire = (): void => {
      timer = undefined;
      expired = deadlineError(ms);
      source.destroy?.(expired);
      wake?.();
    };
    if (bounds.deadlineNs <= clock.nowNs()) fire();
    else timer = clock.setTimer(bounds.deadlineNs, fire);
  }
  // The deadline must end the wait even when the source ignores `destroy` (a plain iterable).
  const timedOut = new Promise<'expired'>((resolve) => {
    wake = () => resolve('expired');
    if (expired !== undefined) resolve('expired');
  });
  const iterator = source[Symbol.asyncIterator]();
  try {
    for (;;) {
      if (expired !== undefined) return { ok: false, error: expired, bytes: budget.bytes };
      const next = await Promise.race([iterator.next(), timedOut]);
      if (next === 'expired') return { ok: false, error: expired as Error | undefined, bytes: budget.bytes };
      if (next.done === true) break;
      const chunk = typeof next.value === 'string' ? Buffer.from(next.value) : Buffer.from(next.value.buffer, next.value.byteOffset, next.value.byteLength);
      const over = budget.take(chunk.length);
      if (over !== undefined) {
        source.destroy?.(over);
        return { ok: false, error: over, bytes: budget.bytes };
      }
      chunks.push(chunk);
    }
  } catch (err) {
    return { ok: false, error: expired ?? err, bytes: budget.bytes };
  } finally {
    if (timer !== undefined) clock.clearTimer(timer);
    wake = undefined;
    // Ends the iteration (and with it the source) when it stopped early; a finished one ignores it.
    void iterator.return?.()?.catch(() => undefined);
  }
  const buf = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, budget.bytes);
  return { ok: true, text: decodeBody(buf, 0, buf.length), bytes: budget.bytes };
}
