/**
 * One SSE parser: the conformance battery's view of a body (`parseSseText`) and the run's
 * decoder (`createSseDecoder`, what `run` and `probe` time streams with) read the same bytes as
 * the same events. The hand-written view it replaced kept a last event with no closing blank
 * line, which the decoder (and the SSE standard) drops: the battery and the run disagreed.
 */
import { describe, expect, it } from 'vitest';
import { createSseDecoder, type TimedStreamEvent } from '../../src/api/index.js';
import { parseSseText } from '../../src/conformance/index.js';

function runDecodes(text: string): TimedStreamEvent[] {
  const out: TimedStreamEvent[] = [];
  const d = createSseDecoder((e) => out.push(e));
  // Split in odd places, as a socket would deliver it.
  const bytes = Buffer.from(text);
  for (let i = 0; i < bytes.length; i += 7) d.push(bytes.subarray(i, i + 7), 0);
  d.end(0);
  return out;
}

const BODIES: readonly [string, string][] = [
  ['LF, a comment, multi-line data', ': hi\ndata: {"type":"start","run_id":"r"}\n\ndata: {"type":"token",\ndata: "content":"a"}\n\n'],
  ['CRLF and CR line ends', 'data: {"type":"start"}\r\n\r\ndata: {"type":"token","content":"é"}\r\rdata: {"type":"end"}\r\n\r\n'],
  ['a last event with no closing blank line', 'data: {"type":"start"}\n\ndata: {"type":"end"}\n'],
  ['unknown types, an object without a type, and text that is not JSON', 'data: {"type":"ping"}\n\ndata: {"x":1}\n\ndata: not json\n\n'],
];

describe('the battery and the run decode the same SSE bytes the same way', () => {
  it.each(BODIES)('%s', (_name, text) => {
    const view = parseSseText(text);
    const run = runDecodes(text);
    expect(view.events.length).toBe(run.length);
    view.events.forEach((e, i) => {
      const r = run[i] as TimedStreamEvent;
      const rType = r.type === 'unknown' ? r.rawType : r.type === 'malformed' ? undefined : r.type;
      expect(e.type, `event ${i}`).toBe(rType);
      if (r.type !== 'malformed') expect(e.data).toEqual(r.data);
    });
  });

  it('drops an event left without its closing blank line, as the run does', () => {
    expect(parseSseText('data: {"type":"start"}\n\ndata: {"type":"end"}').events.map((e) => e.type)).toEqual(['start']);
  });

  it('still counts comments, CRLF and malformed events', () => {
    const v = parseSseText(': a\r\n: b\r\ndata: nope\r\n\r\ndata: [1]\r\n\r\n');
    expect(v).toMatchObject({ comments: 2, crlf: true, malformed: 2 });
  });
});
