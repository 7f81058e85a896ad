/**
 * The promises a limiter makes about when it frees capacity (a Reset, a Retry-After, in whole
 * seconds), read under either rounding, and a heap of them that finds the newest one already past
 * as the judgement sweeps its 429s in send order. Pure.
 */
import { EPOCH_MS_MIN, EPOCH_SECONDS_MIN } from './reset-semantics.js';

const S = 1e6;

/** A promise of capacity: after `pastAfter` (µs), `capacity` more than were counted after `from`, made by answer `by`. */
export type Promise3 = readonly [pastAfter: number, from: number, capacity: number, by: number];

/** Promises the service made about when it frees capacity, kept so the newest one already past can be found. */
export class Promises {
  /** Min-heap by `pastAfter`. */
  private readonly heap: Promise3[] = [];
  /** The promise already past with the latest `from`. */
  best: Promise3 | undefined;
  add(p: Promise3): void {
    const h = this.heap;
    h.push(p);
    let i = h.length - 1;
    while (i > 0) {
      const up = (i - 1) >> 1;
      if ((h[up] as Promise3)[0] <= (h[i] as Promise3)[0]) break;
      [h[up], h[i]] = [h[i] as Promise3, h[up] as Promise3];
      i = up;
    }
  }
  /** Moves the promises whose instant is before `t` out of the heap, keeping the best. */
  advance(t: number): void {
    const h = this.heap;
    while (h.length > 0 && (h[0] as Promise3)[0] < t) {
      const top = h[0] as Promise3;
      if (this.best === undefined || top[1] > this.best[1] || (top[1] === this.best[1] && top[2] > this.best[2])) this.best = top;
      const last = h.pop() as Promise3;
      if (h.length === 0) break;
      h[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < h.length && (h[l] as Promise3)[0] < (h[m] as Promise3)[0]) m = l;
        if (r < h.length && (h[r] as Promise3)[0] < (h[m] as Promise3)[0]) m = r;
        if (m === i) break;
        [h[m], h[i]] = [h[i] as Promise3, h[m] as Promise3];
        i = m;
      }
    }
  }
}

/** How far ahead of the answer (µs) a Reset points. */
export function aheadUs(reset: number, answerUs: number, startWallMs: number): number {
  if (reset >= EPOCH_MS_MIN) return (reset - startWallMs) * 1000 - answerUs;
  if (reset > EPOCH_SECONDS_MIN) return (reset * 1000 - startWallMs) * 1000 - answerUs;
  return reset * S;
}

/**
 * When the capacity a Reset promises is free, in µs, under either rounding of its whole seconds:
 * counted from (the earliest the reset can have been: rounded up, the value less a second) and
 * past after (the latest the promise allows: rounded down, the value plus a second, so a service
 * that rounds down is not accused for it). A delta counts from when the service answered; an epoch
 * value is wall-clock seconds; a value in milliseconds since the epoch is read as such.
 */
export function promiseOf(reset: number, sendUs: number, answerUs: number, startWallMs: number): [number, number] {
  if (reset >= EPOCH_MS_MIN) {
    const at = (reset - startWallMs) * 1000;
    return [at - 1000, at + 1000];
  }
  if (reset > EPOCH_SECONDS_MIN) {
    const at = (reset * 1000 - startWallMs) * 1000;
    return [at - S, at + S];
  }
  return [sendUs + (reset - 1) * S, answerUs + (reset + 1) * S];
}
