/**
 * Property-based tests of the parsers that read what a service (or a user) sends. They extend
 * the example tests of test/api, test/slo and test/scenario: generated SSE bodies split at any
 * byte, rate-limit headers of any shape, thresholds written every way the grammar allows,
 * scenario files of arbitrary text.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it, onTestFinished } from 'vitest';
import { createSseDecoder, parseRateLimitHeaders, toTimedEvent, type ResponseHeaders, type TimedStreamEvent } from '../../src/api/index.js';
import { createRedactor, redactRateLimit } from '../../src/api/redact.js';
import { FlowgaugeError } from '../../src/core/errors.js';
import { OPS } from '../../src/core/ops.js';
import { STREAM_TIMING_NAMES } from '../../src/core/stream-timings.js';
import { COMPARATORS, PCT_STATS, RATELIMIT_METRICS } from '../../src/slo/threshold-grammar.js';
import { parseThreshold } from '../../src/slo/thresholds.js';
import { loadScenarioFile, resolveScenario } from '../../src/scenario/index.js';

const enc = new TextEncoder();

// ---------------------------------------------------------------------------------------------
// SSE decoding

const EOLS = ['\n', '\r', '\r\n'] as const;
type Eol = (typeof EOLS)[number];

/** Text that may sit on one SSE line: any unicode (astral included) but CR and LF. */
const lineText = (minLength = 0): fc.Arbitrary<string> =>
  fc.string({ unit: 'grapheme', minLength, maxLength: 12 }).map((s) => s.replace(/[\r\n]/g, ' '));

/** The `data` of one event: a JSON event of the interface, or raw (possibly multi-line) text. */
const eventData = fc.oneof(
  fc.record({ type: fc.constant('token'), content: fc.string({ unit: 'grapheme', maxLength: 10 }) }).map((o) => JSON.stringify(o)),
  fc.constantFrom('{"type":"start","run_id":"r1"}', '{"type":"end","run_id":"r1","usage":{"total_tokens":2,"prompt_tokens":1,"completion_tokens":1}}'),
  fc.record({ type: fc.constantFrom('ping', 'error', 'metadata'), n: fc.integer() }).map((o) => JSON.stringify(o)),
  // Raw text over several data lines; the first line is not empty so the event carries data.
  fc.array(lineText(), { minLength: 1, maxLength: 3 }).chain((rest) => lineText(1).map((first) => [first, ...rest].join('\n'))),
);

interface GenEvent {
  /** Lines before the data: comments and ignored fields. */
  readonly extra: readonly string[];
  readonly data: string;
}

const genEvent: fc.Arbitrary<GenEvent> = fc.record({
  extra: fc.array(
    fc.oneof(
      lineText().map((t) => `:${t}`),
      fc.stringMatching(/^[a-z0-9]{0,6}$/).map((t) => `id: ${t}`),
      fc.constantFrom('event: message', 'retry: 100'),
    ),
    { maxLength: 2 },
  ),
  data: eventData,
});

interface GenBody {
  readonly bytes: Uint8Array;
  readonly events: readonly GenEvent[];
  /** Byte offset of the first byte of each event's terminating blank line's line end. */
  readonly completeAt: readonly number[];
}

/** Serialises events with a line end chosen per line (CR, LF or CRLF). */
function serialise(events: readonly GenEvent[], eolFor: (i: number) => Eol): GenBody {
  let text = '';
  let bytes = 0;
  let n = 0;
  let prevEol: Eol | undefined;
  const completeAt: number[] = [];
  const line = (content: string): void => {
    let eol = eolFor(n++);
    // An empty line ending in LF right after a bare CR would read as one CRLF, not two ends.
    if (content === '' && prevEol === '\r' && eol === '\n') eol = '\r\n';
    text += content + eol;
    bytes += enc.encode(content).length;
    if (content === '') completeAt.push(bytes);
    bytes += eol.length;
    prevEol = eol;
  };
  for (const e of events) {
    for (const x of e.extra) line(x);
    for (const d of e.data.split('\n')) line(`data: ${d}`);
    line('');
  }
  const encoded = enc.encode(text);
  expect(encoded.length).toBe(bytes);
  return { bytes: encoded, events, completeAt };
}

const genBody: fc.Arbitrary<GenBody> = fc
  .tuple(fc.array(genEvent, { minLength: 1, maxLength: 6 }), fc.oneof(fc.constantFrom(...EOLS).map((e) => [e]), fc.array(fc.constantFrom(...EOLS), { minLength: 1, maxLength: 8 })))
  .map(([events, eols]) => serialise(events, (i) => eols[i % eols.length] as Eol));

/** Splits `bytes` at the (unsorted) cut points; a repeated point makes an empty chunk. */
function split(bytes: Uint8Array, cuts: readonly number[]): { chunks: Uint8Array[]; starts: number[] } {
  const sorted = cuts.map((c) => c % (bytes.length + 1)).filter((c) => c > 0 && c < bytes.length).sort((a, b) => a - b);
  const chunks: Uint8Array[] = [];
  const starts: number[] = [];
  let prev = 0;
  for (const c of [...sorted, bytes.length]) {
    chunks.push(bytes.subarray(prev, c));
    starts.push(prev);
    prev = c;
  }
  return { chunks, starts };
}

/** Decodes chunks, stamping chunk `i` with time `i`. */
function decode(chunks: readonly Uint8Array[]): TimedStreamEvent[] {
  const out: TimedStreamEvent[] = [];
  const d = createSseDecoder((e) => out.push(e));
  chunks.forEach((c, i) => d.push(c, i));
  d.end(chunks.length);
  return out;
}

const untimed = (events: readonly TimedStreamEvent[]): unknown[] => events.map(({ atNs: _a, ...rest }) => rest);

describe('SSE decoding (property)', () => {
  it('any chunking decodes to the events that were sent, as the unchunked body does', () => {
    fc.assert(
      fc.property(genBody, fc.array(fc.oneof(fc.nat(), fc.nat({ max: 40 })), { maxLength: 30 }), (body, cuts) => {
        const expected = body.events.map((e) => untimed([toTimedEvent(e.data, 0)])[0]);
        const whole = untimed(decode([body.bytes]));
        expect(whole).toEqual(expected);
        expect(untimed(decode(split(body.bytes, cuts).chunks))).toEqual(whole);
      }),
      { numRuns: 400 },
    );
  });

  it('byte by byte decodes the same as whole', () => {
    fc.assert(
      fc.property(genBody, (body) => {
        const bytes = Array.from(body.bytes, (_b, i) => body.bytes.subarray(i, i + 1));
        expect(untimed(decode(bytes))).toEqual(untimed(decode([body.bytes])));
      }),
      { numRuns: 100 },
    );
  });

  it('stamps each event with the arrival of the chunk holding the end of its blank line', () => {
    // A blank line is complete at its first line-end byte (a CR is a whole line end; an LF
    // after it belongs to the same one), so a CR at the end of a chunk must not hold the
    // event back until the next chunk: that would shift TTFT and ITL by a chunk's gap.
    fc.assert(
      fc.property(genBody, fc.array(fc.oneof(fc.nat(), fc.nat({ max: 40 })), { maxLength: 30 }), (body, cuts) => {
        const { chunks, starts } = split(body.bytes, cuts);
        const chunkOf = (offset: number): number => {
          let i = 0;
          while (i + 1 < starts.length && (starts[i + 1] as number) <= offset) i++;
          return i;
        };
        const events = decode(chunks);
        expect(events.map((e) => e.atNs)).toEqual(body.completeAt.map(chunkOf));
      }),
      { numRuns: 400 },
    );
  });
});

// ---------------------------------------------------------------------------------------------
// Rate-limit headers

const HEADER_NAMES = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'retry-after'] as const;
const headerValue = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary' }),
  fc.integer().map(String),
  fc.array(fc.string(), { minLength: 1, maxLength: 3 }),
  fc.constant(undefined),
);

describe('rate-limit headers (property)', () => {
  it('never throw, and are undefined exactly when none of the four headers is there', () => {
    const headers = fc.dictionary(fc.oneof(fc.constantFrom(...HEADER_NAMES), fc.string()), headerValue);
    fc.assert(
      fc.property(headers, (h) => {
        const info = parseRateLimitHeaders(h as ResponseHeaders);
        const present = HEADER_NAMES.some((n) => h[n] !== undefined);
        expect(info !== undefined).toBe(present);
      }),
      { numRuns: 1000 },
    );
  });

  it('integers round-trip, whitespace around them allowed', () => {
    fc.assert(
      fc.property(fc.constantFrom(...HEADER_NAMES.slice(0, 3)), fc.maxSafeInteger().chain((n) => fc.tuple(fc.constant(n), fc.constantFrom('', ' ', '\t'))), (name, [n, pad]) => {
        const raw = `${pad}${n}${pad}`;
        const info = parseRateLimitHeaders({ [name]: raw });
        const key = name === 'x-ratelimit-limit' ? 'limit' : name === 'x-ratelimit-remaining' ? 'remaining' : 'reset';
        expect(info?.[key]).toBe(n);
        expect(info?.raw[key]).toBe(raw);
      }),
      { numRuns: 500 },
    );
  });

  it('anything but a plain safe integer parses to undefined and keeps its raw text', () => {
    const notInteger = fc.string().filter((s) => !/^-?\d+$/.test(s.trim()) || !Number.isSafeInteger(Number(s.trim())));
    fc.assert(
      fc.property(notInteger, notInteger, (a, b) => {
        const info = parseRateLimitHeaders({ 'x-ratelimit-limit': a, 'x-ratelimit-reset': [b, a] });
        expect(info?.limit).toBeUndefined();
        expect(info?.raw.limit).toBe(a);
        expect(info?.reset).toBeUndefined();
        expect(info?.raw.reset).toBe(`${b}, ${a}`);
      }),
      { numRuns: 500 },
    );
  });

  it('scrubbing never leaves the token in a raw value and changes nothing without it', () => {
    const token = 'tok_9f8e7d6c';
    const redact = createRedactor(token);
    const withToken = fc.tuple(fc.string(), fc.string()).map(([a, b]) => `${a}${token}${b}`);
    fc.assert(
      fc.property(fc.record({ 'x-ratelimit-limit': fc.oneof(fc.string(), withToken), 'x-ratelimit-reset': fc.oneof(fc.nat().map(String), withToken), 'retry-after': withToken }, { requiredKeys: [] }), (h) => {
        const info = parseRateLimitHeaders(h);
        if (info === undefined) return;
        const scrubbed = redactRateLimit(info, redact);
        expect(JSON.stringify(scrubbed)).not.toContain(token);
        if (!JSON.stringify(info).includes(token)) expect(scrubbed).toBe(info);
      }),
      { numRuns: 500 },
    );
  });
});

// ---------------------------------------------------------------------------------------------
// Threshold grammar

type Unit = 'ms' | 'ratio' | 'count' | 'perS';
const DURATION_MS: Readonly<Record<string, number>> = { '': 1, ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1e3, m: 6e4, min: 6e4, h: 3.6e6 };

/** A metric key of every kind, with the unit of its values. */
const metricKey: fc.Arbitrary<{ key: string; unit: Unit }> = fc.oneof(
  fc.tuple(fc.constantFrom(...OPS), fc.constantFrom(...PCT_STATS)).map(([op, st]) => ({ key: `${op}.latency.${st}`, unit: (st === 'count' ? 'count' : 'ms') as Unit })),
  fc
    .tuple(fc.constantFrom(...STREAM_TIMING_NAMES), fc.constantFrom(...PCT_STATS))
    .map(([m, st]) => ({ key: `stream.${m}.${st}`, unit: (st === 'count' ? 'count' : m === 'tokensPerS' ? 'perS' : 'ms') as Unit })),
  fc.constantFrom({ key: 'availability', unit: 'ratio' as Unit }, { key: 'errors.rate', unit: 'ratio' as Unit }),
  fc.constantFrom(...RATELIMIT_METRICS).map((m) => ({ key: `ratelimit.${m}`, unit: 'count' as Unit })),
  fc.constantFrom({ key: 'dropped', unit: 'count' as Unit }, { key: 'contract.violations', unit: 'count' as Unit }),
);

/** A decimal numeral (no exponent, as the grammar reads it). */
const numeral = (maxInt: number): fc.Arbitrary<string> =>
  fc.tuple(fc.nat({ max: maxInt }), fc.option(fc.stringMatching(/^\d{1,3}$/), { nil: undefined })).map(([i, f]) => (f === undefined ? String(i) : `${i}.${f}`));

/** A value written with a suffix the unit takes, and the value it means in that unit. */
function writtenValue(unit: Unit): fc.Arbitrary<{ text: string; value: number }> {
  switch (unit) {
    case 'ms':
      return fc.tuple(numeral(100_000), fc.constantFrom(...Object.keys(DURATION_MS))).map(([n, u]) => ({ text: `${n}${u}`, value: Number(n) * (DURATION_MS[u] as number) }));
    case 'ratio':
      return fc.oneof(
        numeral(99).map((n) => ({ text: `${n}%`, value: Number(n) / 100 })),
        fc.constantFrom('0', '1', '0.5', '0.999', '0.9995').map((n) => ({ text: n, value: Number(n) })),
      );
    default:
      return numeral(1_000_000).map((n) => ({ text: n, value: Number(n) }));
  }
}

const space = fc.constantFrom('', ' ', '  ', '\t');

describe('threshold grammar (property)', () => {
  it('a threshold written any valid way parses back to its comparator and value', () => {
    const written = metricKey.chain(({ key, unit }) =>
      fc.record({ key: fc.constant(key), op: fc.constantFrom(...COMPARATORS), v: writtenValue(unit), s: fc.tuple(space, space, space, space) }),
    );
    fc.assert(
      fc.property(written, ({ key, op, v, s }) => {
        const expr = `${s[0]}${op}${s[1]}${v.text}${s[2]}`;
        const r = parseThreshold(`${s[3]}${key}${s[3]}`, expr);
        if (!r.ok) throw new Error(`${key} ${JSON.stringify(expr)}: ${r.error}`);
        expect(r.threshold.key).toBe(key);
        expect(r.threshold.op).toBe(op);
        expect(Math.abs(r.threshold.value - v.value)).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(v.value)));
      }),
      { numRuns: 1000 },
    );
  });

  it('never throws for any key and expression, strings or not', () => {
    fc.assert(
      fc.property(fc.anything(), fc.anything(), (key, expr) => {
        const r = parseThreshold(key as string, expr as string);
        if (!r.ok) expect(r.error.length).toBeGreaterThan(0);
      }),
      { numRuns: 500 },
    );
  });
});

// ---------------------------------------------------------------------------------------------
// Scenario files

const dir = mkdtempSync(join(tmpdir(), 'fg-props-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Loads and resolves `text` as a scenario file; anything thrown must be a FlowgaugeError. */
async function loadText(ext: string, text: string, n: number): Promise<void> {
  const path = join(dir, `s${n}${ext}`);
  writeFileSync(path, text);
  try {
    resolveScenario(await loadScenarioFile(path));
  } catch (err) {
    if (!(err instanceof FlowgaugeError)) throw err;
    expect(err.message).toContain(err.code === 'FG_CONFIG_INVALID' ? 'invalid' : '');
  }
}

const YAML_PIECES = [
  'name: demo\n', 'tier: pro\n', 'tier: {limitPerMinute: 5}\n', 'load:\n', '  rate: 5/s\n', '  duration: 1s\n', '  executor: poisson\n',
  'mix:\n', '  - op: run\n', '  - op: stream\n    weight: 2\n', 'thresholds:\n', '  availability: ">=99%"\n',
  '- ', '&a ', '*a ', '<<: *a\n', '[', ']', '{', '}', ': ', '\n', '  ', '"', "'", '#', '---\n', '...\n', '%YAML 1.2\n', 
  '~', '.inf', '.nan', '0x1F', '1e400', '-0', 'null', 'true', '? ', '|\n', '>\n', '\t', '\u0000', '\ufeff', '😀',
];

describe('scenario files (property)', () => {
  it('arbitrary YAML-ish and JSON-ish text never throws anything but a FlowgaugeError', async () => {
    let n = 0;
    // The yaml package reports odd documents through process.emitWarning; keep the run quiet.
    const emitWarning = process.emitWarning;
    process.emitWarning = (() => undefined) as typeof process.emitWarning;
    onTestFinished(() => {
      process.emitWarning = emitWarning;
    });
    await fc.assert(
      fc.asyncProperty(fc.array(fc.constantFrom(...YAML_PIECES), { maxLength: 40 }).map((p) => p.join('')), async (text) => {
        await loadText('.yaml', text, n++);
      }),
      { numRuns: 150 },
    );
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.json(), fc.string(), fc.jsonValue().map((v) => JSON.stringify(v))), async (text) => {
        await loadText('.json', text, n++);
      }),
      { numRuns: 150 },
    );
  });

  it('a YAML alias bomb is refused as a ConfigError, not expanded', async () => {
    const lines = ['a: &a ["x","x","x","x","x","x","x","x","x","x"]'];
    for (let i = 1; i < 9; i++) lines.push(`${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(10).fill(`*${String.fromCharCode(96 + i)}`).join(',')}]`);
    const path = join(dir, 'bomb.yaml');
    writeFileSync(path, `${lines.join('\n')}\n`);
    await expect(loadScenarioFile(path)).rejects.toMatchObject({ code: 'FG_CONFIG_INVALID' });
  });
});
