/**
 * The cases of the fault matrix (see fault-matrix.test.ts): how a target misbehaves, which
 * operation meets it, and what the report must say. A case names a raw-server fault, or
 * reference-service options whose faults fit.
 */
import type { ServerResponse } from 'node:http';
import type { ErrorCode } from '../../src/core/codes.js';
import type { SliClass } from '../../src/core/types.js';
import type { Report } from '../../src/report/index.js';
import type { ReferenceServiceOptions } from '../../src/target/index.js';
import { expect } from 'vitest';
import { scaledMs } from './cli-process.js';
import { RUN_BODY, sseEvent, sseStream, type Fault } from './fault-server.js';

/** The token of every matrix run (the limited-tier case needs it in the service's options). */
export const TOKEN = 'fg_reliability_matrix_token';

/** 20/s for 500 ms: 10 requests on the schedule. */
export const RATE = '20/s';
export const DURATION = '500ms';
/** Requests the default schedule starts. */
export const SCHEDULED = 10;

/**
 * The client's headers or body timeout against a server that stalls (never finishes): 300 ms on
 * a quiet machine, stretched on a slow one, where a request could otherwise reach it before the
 * server even read it (the case asserts the server saw every request). A stalled server stays
 * stalled however long the wait, so the outcome is the same.
 */
const STALL_MS = scaledMs(300);

/** The operation a case measures. */
export type Op = 'run' | 'stream';

/** The same outcome for every request of a case. */
export interface Expectation {
  /** Error code every request of the op carries (undefined: none). */
  readonly error: ErrorCode | undefined;
  readonly sli: SliClass;
  /** HTTP status every request got (0: none arrived). */
  readonly status: number;
}

/** One row of the matrix. */
export interface MatrixCase {
  readonly name: string;
  readonly op: Op;
  readonly raw?: Fault;
  readonly refuse?: boolean;
  readonly service?: ReferenceServiceOptions;
  readonly timeouts?: { headersMs?: number; bodyMs?: number };
  readonly load?: { rate: string; duration: string; scheduled: number };
  /** Every request the same outcome, or a custom check of the report. */
  readonly expect: Expectation | ((report: Report) => void);
}

const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void => {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
};

const TEN_MB = 10 * 1024 * 1024;
const BIG_TOKEN = 'x'.repeat(TEN_MB);
/** A raw HTTP/1.1 200 head of a JSON run answer, for faults that write bytes themselves. */
const RAW_RUN = JSON.stringify(RUN_BODY);
const RAW_HEAD = `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(RAW_RUN)}\r\n\r\n`;

/** Every case, in the order docs/reliability.md lists them. */
export const CASES: readonly MatrixCase[] = [
  {
    name: 'connection refused',
    op: 'run',
    refuse: true,
    raw: () => undefined,
    expect: { error: 'CONNECTION_REFUSED', sli: 'bad', status: 0 },
  },
  {
    name: 'connection reset before any response (RST)',
    op: 'run',
    raw: (req) => req.socket.resetAndDestroy(),
    expect: { error: 'CONNECTION_RESET', sli: 'bad', status: 0 },
  },
  {
    name: 'connection reset mid-body (RST)',
    op: 'run',
    raw: (req, res, t) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': 4096 });
      res.write('{"id":"run_1","flow_id":');
      t.later(10, () => req.socket.resetAndDestroy());
    },
    expect: { error: 'CONNECTION_RESET', sli: 'bad', status: 200 },
  },
  {
    name: 'connection closed mid-body (FIN)',
    op: 'run',
    raw: (req, res, t) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': 4096 });
      res.write('{"id":"run_1","flow_id":');
      t.later(10, () => req.socket.destroy());
    },
    expect: { error: 'CONNECTION_RESET', sli: 'bad', status: 200 },
  },
  {
    name: 'no response head: stall past the headers timeout',
    op: 'run',
    raw: () => undefined,
    timeouts: { headersMs: STALL_MS },
    expect: { error: 'HEADERS_TIMEOUT', sli: 'bad', status: 0 },
  },
  {
    name: 'headers trickled byte by byte past the headers timeout',
    op: 'run',
    raw: (req, _res, t) => {
      let i = 0;
      const drip = (): void => {
        if (i < RAW_HEAD.length - 4) req.socket.write(RAW_HEAD[i++] as string);
        t.later(50, drip);
      };
      drip();
    },
    timeouts: { headersMs: STALL_MS },
    expect: { error: 'HEADERS_TIMEOUT', sli: 'bad', status: 0 },
  },
  {
    name: 'body stalls past the body timeout',
    op: 'run',
    raw: (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': 4096 });
      res.write('{"id":"run_1",');
    },
    timeouts: { bodyMs: STALL_MS },
    expect: { error: 'BODY_TIMEOUT', sli: 'bad', status: 200 },
  },
  {
    name: 'stream stalls mid-way past the body timeout (reference streamStall)',
    op: 'stream',
    service: { faults: { streamStall: { afterTokens: 2, pauseMs: '30s', rate: 1 } } },
    timeouts: { bodyMs: STALL_MS },
    expect: { error: 'BODY_TIMEOUT', sli: 'bad', status: 200 },
  },
  {
    name: 'slow headers within the timeout (head after 120 ms, dripped)',
    op: 'run',
    raw: (req, _res, t) => {
      const whole = RAW_HEAD + RAW_RUN;
      let i = 0;
      const drip = (): void => {
        const n = Math.ceil(whole.length / 6);
        req.socket.write(whole.slice(i, i + n));
        i += n;
        if (i < whole.length) t.later(20, drip);
      };
      drip();
    },
    expect: (report) => {
      const s = report.ops.run;
      expect(s?.good).toBe(SCHEDULED);
      // The server spends at least 100 ms dripping; latency from the intended start cannot be less.
      expect(s?.latencyMs.p50).toBeGreaterThanOrEqual(90);
    },
  },
  {
    name: 'slow responses within the timeout (reference latencyMs)',
    op: 'run',
    service: { faults: { latencyMs: { run: 150 } } },
    expect: (report) => {
      expect(report.ops.run?.good).toBe(SCHEDULED);
      expect(report.ops.run?.latencyMs.p50).toBeGreaterThanOrEqual(140);
    },
  },
  {
    name: 'malformed JSON (200, cut object)',
    op: 'run',
    raw: (_req, res) => json(res, 200, '{"id":"run_1","status":'),
    expect: { error: 'MALFORMED_BODY', sli: 'bad', status: 200 },
  },
  {
    name: 'empty 200 body',
    op: 'run',
    raw: (_req, res) => json(res, 200, ''),
    expect: { error: 'MALFORMED_BODY', sli: 'bad', status: 200 },
  },
  {
    name: 'wrong content type: HTML page with 200 on a JSON operation',
    op: 'run',
    raw: (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html><body>Maintenance</body></html>');
    },
    expect: { error: 'MALFORMED_BODY', sli: 'bad', status: 200 },
  },
  {
    name: 'wrong content type: JSON run object instead of an event stream',
    op: 'stream',
    raw: (_req, res) => json(res, 200, RUN_BODY),
    expect: (report) => {
      expect(report.ops.stream?.errors).toEqual({ STREAM_INCOMPLETE: SCHEDULED });
      expect(report.ops.stream?.bad).toBe(SCHEDULED);
      expect(report.contractViolations.some((v) => v.path === 'headers.content-type')).toBe(true);
    },
  },
  {
    name: 'not HTTP at all',
    op: 'run',
    raw: (req) => {
      req.socket.end('SSH-2.0-OpenSSH_9.6\r\n\r\n');
    },
    expect: { error: 'PROTOCOL_ERROR', sli: 'bad', status: 0 },
  },
  {
    name: 'truncated SSE: body ends after two tokens, no end event',
    op: 'stream',
    raw: (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(sseEvent({ type: 'start', run_id: 'run_1' }) + sseEvent({ type: 'token', content: 'a' }) + sseEvent({ type: 'token', content: 'b' }));
    },
    expect: { error: 'STREAM_INCOMPLETE', sli: 'bad', status: 200 },
  },
  {
    name: 'truncated SSE (reference truncatedStreamRate)',
    op: 'stream',
    service: { faults: { truncatedStreamRate: 1 } },
    expect: { error: 'STREAM_INCOMPLETE', sli: 'bad', status: 200 },
  },
  {
    name: 'SSE connection reset mid-stream',
    op: 'stream',
    raw: (req, res, t) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(sseEvent({ type: 'start', run_id: 'run_1' }) + sseEvent({ type: 'token', content: 'a' }));
      t.later(10, () => req.socket.resetAndDestroy());
    },
    expect: { error: 'CONNECTION_RESET', sli: 'bad', status: 200 },
  },
  {
    name: 'SSE error event',
    op: 'stream',
    raw: (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(sseEvent({ type: 'start', run_id: 'run_1' }) + sseEvent({ type: 'error', error: { code: 'INTERNAL_ERROR' } }));
    },
    expect: { error: 'STREAM_ERROR_EVENT', sli: 'bad', status: 200 },
  },
  {
    name: 'SSE token line of 10 MB, then end',
    op: 'stream',
    load: { rate: '4/s', duration: '500ms', scheduled: 2 },
    raw: (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(sseStream([BIG_TOKEN, 'b']));
    },
    expect: (report) => {
      expect(report.ops.stream?.good).toBe(2);
      expect(report.stream.completed).toBe(2);
      expect(report.stream.tokens).toBe(4);
    },
  },
  {
    name: 'SSE line of 10 MB never terminated, then close',
    op: 'stream',
    load: { rate: '4/s', duration: '500ms', scheduled: 2 },
    raw: (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(`${sseEvent({ type: 'start', run_id: 'run_1' })}data: ${BIG_TOKEN}`);
    },
    expect: (report) => {
      expect(report.ops.stream?.errors).toEqual({ STREAM_INCOMPLETE: 2 });
      expect(report.ops.stream?.bad).toBe(2);
    },
  },
  {
    name: '5xx storm: every run 503 (reference errors)',
    op: 'run',
    service: { faults: { errors: { run: { rate: 1, status: 503 } } } },
    expect: { error: 'SERVICE_UNAVAILABLE', sli: 'bad', status: 503 },
  },
  {
    name: '5xx storm: 502 HTML pages from a proxy',
    op: 'run',
    raw: (_req, res) => {
      res.writeHead(502, { 'content-type': 'text/html' });
      res.end('<html>Bad Gateway</html>');
    },
    expect: (report) => {
      expect(report.ops.run?.errors).toEqual({ UNKNOWN: SCHEDULED });
      expect(report.ops.run?.statuses).toEqual({ 502: SCHEDULED });
      expect(report.ops.run?.bad).toBe(SCHEDULED);
      expect(report.contractViolations.some((v) => v.op === 'run' && v.path === 'error')).toBe(true);
    },
  },
  {
    name: '100 % 429 while far under the advertised limit (premature)',
    op: 'run',
    raw: (_req, res) =>
      json(
        res,
        429,
        { error: { code: 'RATE_LIMITED', message: 'slow down' }, request_id: 'req_1' },
        { 'x-ratelimit-limit': '1000', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '30' },
      ),
    expect: (report) => {
      expect(report.ops.run?.errors).toEqual({ RATE_LIMITED: SCHEDULED });
      expect(report.ops.run?.bad).toBe(SCHEDULED);
      expect(report.rateLimit.premature429).toBe(SCHEDULED);
      expect(report.rateLimit.expected429).toBe(0);
    },
  },
  {
    name: '429 with no rate-limit headers at all (premature: no limit was stated)',
    op: 'run',
    raw: (_req, res) => json(res, 429, { error: { code: 'RATE_LIMITED', message: 'slow down' }, request_id: 'req_1' }),
    expect: { error: 'RATE_LIMITED', sli: 'bad', status: 429 },
  },
  {
    name: '429 once the advertised limit is used up (expected)',
    op: 'run',
    // 3 per window: the preparation takes 1, two runs pass, the other eight are refused.
    service: { tokens: { [TOKEN]: { account: 'acct_b', tier: { limitPerMinute: 3 } } } },
    expect: (report) => {
      const s = report.ops.run;
      expect(s?.good).toBe(2);
      expect(s?.excluded).toBe(SCHEDULED - 2);
      expect(s?.errors).toEqual({ RATE_LIMITED: SCHEDULED - 2 });
      // Each refusal is expected; one whose order against the requests in flight cannot be known
      // (answers overtaking each other on a busy machine) is uncertain, never premature.
      expect(report.rateLimit.expected429 + (report.rateLimit.uncertain429 ?? 0)).toBe(SCHEDULED - 2);
      expect(report.rateLimit.expected429).toBeGreaterThan(0);
      expect(report.rateLimit.premature429).toBe(0);
    },
  },
];
