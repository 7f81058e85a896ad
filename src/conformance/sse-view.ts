/**
 * A whole server-sent-events body, parsed for inspection rather than timing: the events, and
 * the framing details the interface leaves unsaid (comment lines, CRLF line endings, event
 * types beyond start/token/end).
 */

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

/** Parses an SSE body: events separated by blank lines, `data:` lines joined with `\n`. */
export function parseSseText(text: string): SseView {
  const crlf = text.includes('\r\n');
  const lines = text.split(/\r\n|\r|\n/);
  const events: SseViewEvent[] = [];
  let comments = 0;
  let malformed = 0;
  let data: string[] = [];
  const flush = (): void => {
    if (data.length === 0) return;
    const raw = data.join('\n');
    data = [];
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch {
      parsed = undefined;
    }
    const obj = typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
    if (obj === undefined) malformed++;
    events.push({ type: typeof obj?.type === 'string' ? obj.type : undefined, data: parsed });
  };
  for (const line of lines) {
    if (line === '') flush();
    else if (line.startsWith(':')) comments++;
    else if (line.startsWith('data:')) data.push(line.slice(line.startsWith('data: ') ? 6 : 5));
    // `event:`, `id:` and `retry:` fields carry nothing the interface uses.
  }
  flush();
  return { events, comments, crlf, malformed };
}
