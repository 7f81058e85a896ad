/**
 * Pull-style view of a stream: an async generator yielding events as they arrive and
 * returning the `StreamResult`. Chunks are still stamped in the push path (`sse-stream.ts`),
 * so a slow consumer delays delivery, never the timestamps.
 */
import type { StreamResult, TimedStreamEvent } from './result.js';
import type { StreamEventSink } from './sse-stream.js';

/** Starts a stream with a signal and an event sink. */
export type StreamStarter = (signal: AbortSignal, sink: StreamEventSink) => Promise<StreamResult>;

/**
 * Yields the events of the stream `start` opens. Leaving the loop early (`break`, `return`,
 * a throw) cancels the request.
 */
export async function* streamEvents(
  start: StreamStarter,
  userSignal: AbortSignal | undefined,
): AsyncGenerator<TimedStreamEvent, StreamResult> {
  const cancel = new AbortController();
  const signal = userSignal === undefined ? cancel.signal : AbortSignal.any([userSignal, cancel.signal]);
  let queue: TimedStreamEvent[] = [];
  let wake: (() => void) | undefined;
  let settled = false;
  const notify = (): void => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  const resultP = start(signal, (e) => {
    queue.push(e);
    notify();
  });
  // Rejection (a throwing sink) cannot happen with this sink; the catch only keeps the promise handled.
  resultP.then(
    () => {
      settled = true;
      notify();
    },
    () => {
      settled = true;
      notify();
    },
  );
  try {
    for (;;) {
      if (queue.length > 0) {
        const batch = queue;
        queue = [];
        for (const e of batch) yield e;
        continue;
      }
      if (settled) return await resultP;
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
    }
  } finally {
    if (!settled) cancel.abort();
  }
}
