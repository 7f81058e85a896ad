import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createSseDecoder, type TimedStreamEvent } from '../../src/api/index.js';

const enc = new TextEncoder();

function decodeChunks(chunks: readonly Uint8Array[], stamps?: readonly number[]): TimedStreamEvent[] {
  const out: TimedStreamEvent[] = [];
  const d = createSseDecoder((e) => out.push(e));
  chunks.forEach((c, i) => d.push(c, stamps?.[i] ?? i));
  d.end(chunks.length);
  return out;
}

function decodeText(text: string): TimedStreamEvent[] {
  return decodeChunks([enc.encode(text)]);
}

const strip = (events: TimedStreamEvent[]): unknown[] => events.map(({ atNs: _atNs, ...rest }) => rest);

const START = '{"type":"start","run_id":"r1"}';
const tok = (s: string): string => JSON.stringify({ type: 'token', content: s });
const END = '{"type":"end","run_id":"r1","usage":{"total_tokens":3,"prompt_tokens":1,"completion_tokens":2}}';

function sse(lines: string[], eol: string): string {
  return lines.map((l) => `${l}${eol}`).join('');
}

const BASIC = ['data: ' + START, '', 'data: ' + tok('he'), '', 'data: ' + tok('llo'), '', 'data: ' + END, ''];

describe('SSE decoder', () => {
  it('decodes start, token and end events with LF line ends', () => {
    const events = decodeText(sse(BASIC, '\n'));
    expect(events.map((e) => e.type)).toEqual(['start', 'token', 'token', 'end']);
    expect(events[1]?.data).toEqual({ type: 'token', content: 'he' });
    expect(events[3]?.data).toMatchObject({ usage: { completion_tokens: 2 } });
  });

  it('decodes CR and CRLF line ends exactly like LF', () => {
    const lf = strip(decodeText(sse(BASIC, '\n')));
    expect(strip(decodeText(sse(BASIC, '\r')))).toEqual(lf);
    expect(strip(decodeText(sse(BASIC, '\r\n')))).toEqual(lf);
    expect(lf).toHaveLength(4);
  });

  it('a CR ending the body completes the last event', () => {
    const events = decodeText(`data: ${START}\r\r`);
    expect(events.map((e) => e.type)).toEqual(['start']);
  });

  it('drops an event left without its blank line at the end of the body', () => {
    const events = decodeText(`data: ${START}\n\ndata: ${END}\n`);
    expect(events.map((e) => e.type)).toEqual(['start']);
  });

  it('ignores comment lines and other fields', () => {
    const events = decodeText(`: keep-alive\n\nid: 7\nevent: message\nretry: 100\ndata: ${START}\n\n:another\n`);
    expect(events.map((e) => e.type)).toEqual(['start']);
  });

  it('joins multi-line data with newlines before parsing', () => {
    const events = decodeText('data: {"type":"token",\ndata: "content":"a"}\n\n');
    expect(events).toEqual([{ type: 'token', atNs: 0, data: { type: 'token', content: 'a' } }]);
  });

  it('keeps unknown types, error included, with their raw type', () => {
    const events = decodeText('data: {"type":"ping"}\n\ndata: {"type":"error","code":"X"}\n\n');
    expect(events).toEqual([
      { type: 'unknown', atNs: 0, data: { type: 'ping' }, rawType: 'ping' },
      { type: 'unknown', atNs: 0, data: { type: 'error', code: 'X' }, rawType: 'error' },
    ]);
  });

  it('marks data that is not a JSON object with a string type as malformed, keeping the raw text', () => {
    const events = decodeText('data: not json\n\ndata: {"no":"type"}\n\ndata: [1]\n\ndata: {"type":3}\n\n');
    expect(events.map((e) => [e.type, e.data])).toEqual([
      ['malformed', 'not json'],
      ['malformed', '{"no":"type"}'],
      ['malformed', '[1]'],
      ['malformed', '{"type":3}'],
    ]);
  });

  it('stamps each event with the arrival of the chunk that completed it', () => {
    const text = sse(BASIC, '\n');
    const cut1 = text.indexOf(tok('he')) + 5; // inside the first token event
    const cut2 = text.indexOf('data: ' + END);
    const bytes = enc.encode(text);
    const chunks = [bytes.subarray(0, cut1), bytes.subarray(cut1, cut2), bytes.subarray(cut2)];
    const events = decodeChunks(chunks, [100, 250, 900]);
    expect(events.map((e) => [e.type, e.atNs])).toEqual([
      ['start', 100],
      ['token', 250],
      ['token', 250],
      ['end', 900],
    ]);
  });

  it('decodes a multi-byte character split between chunks', () => {
    const bytes = enc.encode(`data: ${tok('é🚀')}\n\n`);
    const at = bytes.indexOf(0xf0) + 2; // inside the 4-byte rocket
    const events = decodeChunks([bytes.subarray(0, at), bytes.subarray(at)]);
    expect(events[0]?.data).toEqual({ type: 'token', content: 'é🚀' });
  });

  it('decodes the same events however the bytes are split (seeded random splits)', () => {
    const lines = [
      ': hello',
      `data: ${START}`,
      '',
      `data: ${tok('héllo wörld ')}`,
      '',
      'data: {"type":"token",',
      `data: "content":"世界🚀"}`,
      '',
      'data: {"type":"ping"}',
      '',
      'data: {broken',
      '',
      `data: ${tok('ß∑😀')}`,
      '',
      `data: ${END}`,
      '',
    ];
    for (const eol of ['\n', '\r', '\r\n']) {
      const bytes = enc.encode(sse(lines, eol));
      const whole = strip(decodeChunks([bytes]));
      expect(whole.map((e) => (e as { type: string }).type)).toEqual(['start', 'token', 'token', 'unknown', 'malformed', 'token', 'end']);
      fc.assert(
        fc.property(fc.uniqueArray(fc.integer({ min: 1, max: bytes.length - 1 }), { maxLength: 40 }), (cuts) => {
          const sorted = [...cuts].sort((a, b) => a - b);
          const chunks: Uint8Array[] = [];
          let prev = 0;
          for (const c of sorted) {
            chunks.push(bytes.subarray(prev, c));
            prev = c;
          }
          chunks.push(bytes.subarray(prev));
          expect(strip(decodeChunks(chunks))).toEqual(whole);
        }),
        { seed: 20260101, numRuns: 300 },
      );
      // Byte-by-byte is the extreme split.
      expect(strip(decodeChunks(Array.from(bytes, (_b, i) => bytes.subarray(i, i + 1))))).toEqual(whole);
    }
  });
});
