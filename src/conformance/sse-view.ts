/**
 * A whole server-sent-events body, parsed for inspection rather than timing: the events, and
 * the framing details the interface leaves unsaid (comment lines, CRLF line endings, event
 * types beyond start/token/end).
 */
import { createSseDecoder } from '../api/sse-decoder.js';
import { isJsonObject } from '../api/validate.js';
import { jsonDeeperThan } from '../core/input-limits.js';

/** One event of the body. */
export interface SseViewEvent {
  /** `type` of the JSON data, when it had one. */
  readonly type: string | undefined;
  /** The parsed JSON of the `data:` lines, or undefined when not JSON. */
  readonly data: unknown;
}

/** What the body held. */
export interface SseView {
  readonly events: readonly SseViewEvent[];
  /** Lines starting with `:`. */
  readonly comments: number;
  /** True when lines ended with CRLF. */
  readonly crlf: boolean;
  /** Events whose data was not a JSON object. */
  readonly malformed: number;
}

/**
 * Parses a whole SSE body with the run's decoder (`api/sse-decoder.ts`), so the battery and the
 * run see the same events in the same bytes: `data:` lines joined with `\n`, CR, LF and CRLF line
 * ends, and an event left without its closing blank line dropped, as the SSE standard says.
 */
export function parseSseText(text: string): SseView {
  const events: SseViewEvent[] = [];
  let comments = 0;
  let malformed = 0;
  const decoder = createSseDecoder(
    (e) => {
      if (e.type !== 'malformed') {
        events.push({ type: e.type === 'unknown' ? e.rawType : e.type, data: e.data });
        return;
      }
      // The decoder calls an object without a string `type` malformed too; the view keeps it as data.
      let parsed: unknown;
      try {
        parsed = jsonDeeperThan(e.data as string) ? undefined : JSON.parse(e.data as string);
      } catch {
        parsed = undefined;
      }
      if (!isJsonObject(parsed)) malformed++;
      events.push({ type: undefined, data: parsed });
    },
    () => comments++,
  );
  decoder.push(Buffer.from(text, 'utf8'), 0);
  decoder.end(0);
  return { events, comments, crlf: text.includes('\r\n'), malformed };
}
