/**
 * Bytes of a server-sent-events body to timed events. Pure: the caller stamps each chunk
 * when it arrives and feeds it here; every event is stamped with the arrival time of the
 * chunk that completed it.
 *
 * Bytes go through a streaming `TextDecoder`, so a multi-byte character split across chunks
 * decodes whole; lines go through eventsource-parser, which handles CR, LF and CRLF (also
 * split across chunks), comments and multi-line `data`. An event left without its closing
 * blank line when the body ends is dropped, as the SSE standard says.
 */
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import type { TimedStreamEvent } from './result.js';
import { isJsonObject } from './validate.js';
import { jsonDeeperThan } from '../core/input-limits.js';

/** Feeds chunks of one body. */
export interface SseDecoder {
  /** Decodes one chunk that arrived at `atNs`, calling `onEvent` for each event it completes. */
  push(chunk: Uint8Array, atNs: number): void;
  /** Flushes the decoder at the end of the body. */
  end(atNs: number): void;
}

const CR = 13;
const LF = 10;
const STREAM_OPTS = { stream: true } as const;

/**
 * Classifies the `data` of one event: `start`/`token`/`end` when it is a JSON object with
 * that `type`; `unknown` for another string `type` (`error` included); `malformed` when it is
 * not a JSON object with a string `type` (then `data` is the raw text).
 */
export function toTimedEvent(data: string, atNs: number): TimedStreamEvent {
  // One event nested a million deep is malformed, refused before JSON.parse would build it.
  if (jsonDeeperThan(data)) return { type: 'malformed', atNs, data };
  let parsed: unknown;
  try {
    parsed = JSON.parse(data);
  } catch {
    return { type: 'malformed', atNs, data };
  }
  if (!isJsonObject(parsed) || typeof parsed.type !== 'string') return { type: 'malformed', atNs, data };
  const t = parsed.type;
  if (t === 'start' || t === 'token' || t === 'end') return { type: t, atNs, data: parsed };
  return { type: 'unknown', atNs, data: parsed, rawType: t };
}

/** A decoder for one body; `onComment` hears each comment line (`:` …), for callers that count them. */
export function createSseDecoder(onEvent: (event: TimedStreamEvent) => void, onComment?: () => void): SseDecoder {
  const text = new TextDecoder('utf-8');
  let currentNs = 0;
  // The parser holds back a CR that ends its input, waiting to see whether an LF follows.
  // Held back, an event whose blank line ends in that CR would be stamped with the arrival
  // of the next chunk (one token gap late, for a service ending lines with CR). A CR is a
  // whole line end, so it is completed at once with an LF, and an LF starting the next
  // chunk (the second half of a CRLF) is dropped.
  let skipLf = false;
  const parser = createParser({
    onEvent(message: EventSourceMessage) {
      onEvent(toTimedEvent(message.data, currentNs));
    },
    ...(onComment !== undefined ? { onComment: () => onComment() } : {}),
  });
  const feed = (input: string): void => {
    let s = input;
    // An empty chunk (or one holding only part of a character) says nothing about that LF yet.
    if (s === '') return;
    if (skipLf) {
      skipLf = false;
      if (s.charCodeAt(0) === LF) {
        s = s.slice(1);
        if (s === '') return;
      }
    }
    parser.feed(s);
    if (s.charCodeAt(s.length - 1) === CR) {
      parser.feed('\n');
      skipLf = true;
    }
  };
  return {
    push(chunk, atNs) {
      currentNs = atNs;
      feed(text.decode(chunk, STREAM_OPTS));
    },
    end(atNs) {
      currentNs = atNs;
      feed(text.decode());
    },
  };
}
