/**
 * The modes of the hostile server: each answers every measured request (`run` and `stream`
 * alike, looking at the path where it matters) in one way a hostile or broken target can.
 * `hostile-suite.test.ts` runs the real CLI against each and checks what must always hold.
 */
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib';
import { rawResponse, type ModeHandler } from './hostile-server.js';

/** Hostile text in a flow id: markup and a forged verdict heading for report.md. */
export const HOSTILE_FLOW_ID = 'flow_<script>alert(1)</script>\n## ✅ PASS';

/** One mode and what it is expected to leave in the report. */
export interface HostileMode {
  readonly name: string;
  readonly handler: ModeHandler;
  /** Flow id of the preparation's list (default `flow_1`). */
  readonly flowId?: string;
  /** Error codes the failures may carry; every request must fail (none counts as good). */
  readonly errors: readonly string[];
  /** Text that must be in report.md and report.html (proof that target text got there, escaped). */
  readonly escaped?: string;
  /** The commands the mode is for (`hostile-commands.test.ts`); absent: every one. */
  readonly commands?: readonly ('conformance' | 'probe' | 'capacity')[];
}

let deep: { body: Buffer; event: Buffer } | undefined;
/**
 * JSON nested millions deep, under every byte cap: a 14 MB body of 7 million `[` and as many
 * `]`, and an SSE event nested a million deep (2 MB). Parsed as it came, the body cost 1.3 GB
 * and a 9 s stall per answer, the event a 2.6 s stall; both must be refused before parsing.
 * Built once, before any run (as the bombs are), so the answers arrive within the deadlines.
 */
export function deepBodies(): { body: Buffer; event: Buffer } {
  deep ??= {
    body: Buffer.from(`${'['.repeat(7_000_000)}${']'.repeat(7_000_000)}`, 'latin1'),
    event: Buffer.from(`data: ${'{"a":'.repeat(1_000_000)}1${'}'.repeat(1_000_000)}\n\n`, 'latin1'),
  };
  return deep;
}

const isStream = (path: string): boolean => path.endsWith('/stream');
const SSE_HEAD = 'HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\n\r\n';
const JSON_HEAD_CHUNKED = 'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n';
const sse = (event: unknown): string => `data: ${JSON.stringify(event)}\n\n`;
const chunk = (s: string): string => `${Buffer.byteLength(s).toString(16)}\r\n${s}\r\n`;

let bombs: { gzip: Buffer; brotli: Buffer } | undefined;
/**
 * Bodies that inflate to 1 GiB: 64 gzip members of 16 MiB of spaces each (a valid multi-member
 * gzip of about 1 MB), and 256 MiB of spaces at brotli quality 5 (a few hundred bytes).
 * Built once, before any run: built on the first request, they held the server past the
 * requests' deadlines.
 */
export function bombBodies(): { gzip: Buffer; brotli: Buffer } {
  if (bombs === undefined) {
    const member = gzipSync(Buffer.alloc(16 * 2 ** 20, 0x20), { level: 9 });
    bombs = {
      gzip: Buffer.concat(Array.from({ length: 64 }, () => member)),
      brotli: brotliCompressSync(Buffer.alloc(256 * 2 ** 20, 0x20), { params: { [zlib.BROTLI_PARAM_QUALITY]: 5 } }),
    };
  }
  return bombs;
}

const bomb =
  (encoding: 'gzip' | 'br'): ModeHandler =>
  (req) => {
    const body = encoding === 'gzip' ? bombBodies().gzip : bombBodies().brotli;
    const type = isStream(req.path) ? 'text/event-stream' : 'application/json';
    req.socket.end(rawResponse(200, { 'content-type': type, 'content-encoding': encoding }, body, true));
  };

/** Every mode, in the order docs/reliability.md lists them. */
export const MODES: readonly HostileMode[] = [
  {
    name: 'silence: the request is read, nothing ever comes back',
    handler: () => undefined,
    errors: ['TIMEOUT', 'HEADERS_TIMEOUT', 'STREAM_INCOMPLETE'],
  },
  {
    name: 'trickled head: a header byte every 50 ms, never ending',
    handler: (req, t) => {
      req.socket.write('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n');
      t.every(50, () => req.socket.write('x'));
    },
    errors: ['TIMEOUT', 'HEADERS_TIMEOUT', 'STREAM_INCOMPLETE'],
  },
  {
    name: 'trickled body: a byte every 50 ms of a 1 MB answer',
    handler: (req, t) => {
      const sse0 = isStream(req.path);
      req.socket.write(sse0 ? `${SSE_HEAD}${sse({ type: 'start', run_id: 'run_1' })}` : 'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 1000000\r\n\r\n{"id":');
      t.every(50, () => req.socket.write(sse0 ? ':' : ' '));
    },
    errors: ['TIMEOUT', 'BODY_TIMEOUT', 'STREAM_INCOMPLETE'],
  },
  {
    name: 'endless body: JSON chunks as fast as the client reads',
    handler: (req, t) => {
      req.socket.write(`${JSON_HEAD_CHUNKED}${chunk('{"id":"run_1","output":"')}`);
      t.flood(chunk('x'.repeat(16 * 1024)));
    },
    errors: ['MALFORMED_BODY', 'TIMEOUT', 'STREAM_INCOMPLETE'],
  },
  {
    name: 'endless SSE line: one data: line that never ends',
    handler: (req, t) => {
      req.socket.write(`${SSE_HEAD}data: `);
      t.flood('x'.repeat(64 * 1024));
    },
    errors: ['MALFORMED_BODY', 'TIMEOUT', 'STREAM_INCOMPLETE'],
  },
  {
    name: 'endless SSE events: tiny token events, never an end',
    handler: (req, t) => {
      req.socket.write(`${SSE_HEAD}${sse({ type: 'start', run_id: 'run_1' })}`);
      t.flood(sse({ type: 'token', content: 'a' }).repeat(512));
    },
    errors: ['MALFORMED_BODY', 'TIMEOUT', 'STREAM_INCOMPLETE'],
  },
  {
    name: 'gzip bomb: 1 MB that inflates to 1 GiB',
    handler: bomb('gzip'),
    errors: ['MALFORMED_BODY', 'STREAM_INCOMPLETE', 'TIMEOUT'],
  },
  {
    name: 'brotli bomb: a few hundred bytes that inflate to 256 MiB',
    handler: bomb('br'),
    errors: ['MALFORMED_BODY', 'STREAM_INCOMPLETE', 'TIMEOUT'],
  },
  {
    name: 'bad chunk framing: a chunk size that is not hex',
    handler: (req) => req.socket.end(`${JSON_HEAD_CHUNKED}zz\r\n{"id":"run_1"}\r\n0\r\n\r\n`),
    errors: ['PROTOCOL_ERROR', 'CONNECTION_RESET', 'MALFORMED_BODY', 'STREAM_INCOMPLETE'],
  },
  {
    name: 'bad chunk framing: a chunk longer than its size, then garbage',
    handler: (req) => req.socket.end(`${JSON_HEAD_CHUNKED}5\r\n{"id":"run_1","status":"completed"}\r\nGARBAGE\r\n\r\n`),
    errors: ['PROTOCOL_ERROR', 'CONNECTION_RESET', 'MALFORMED_BODY', 'STREAM_INCOMPLETE'],
  },
  {
    name: '1xx flood: 102 Processing heads as fast as the client reads',
    handler: (req, t) => t.flood('HTTP/1.1 102 Processing\r\n\r\n'.repeat(256)),
    errors: ['TIMEOUT', 'HEADERS_TIMEOUT', 'PROTOCOL_ERROR', 'STREAM_INCOMPLETE'],
  },
  {
    name: 'a 1 MiB header line',
    handler: (req) => req.socket.end(rawResponse(200, { 'content-type': 'application/json', 'x-junk': 'j'.repeat(2 ** 20) }, '{}', true)),
    errors: ['PROTOCOL_ERROR', 'MALFORMED_BODY', 'STREAM_INCOMPLETE'],
  },
  {
    name: 'reset at once (RST before any byte)',
    handler: (req) => req.socket.resetAndDestroy(),
    errors: ['CONNECTION_RESET'],
  },
  {
    name: 'reset mid-answer (RST after the start event or half a body)',
    handler: (req, t) => {
      req.socket.write(isStream(req.path) ? `${SSE_HEAD}${sse({ type: 'start', run_id: 'run_1' })}` : 'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 400\r\n\r\n{"id":"run_1",');
      t.later(20, () => req.socket.resetAndDestroy());
    },
    // The stream's body is delimited by close. On a starved machine (the suite beside other load)
    // the client has once seen an orderly end here instead of the reset, and a stream that ends
    // without `end` is STREAM_INCOMPLETE; either way it is counted bad, which is what this checks.
    errors: ['CONNECTION_RESET', 'STREAM_INCOMPLETE'],
  },
  {
    name: 'redirects to another host (307 and 302), never followed',
    handler: (req, t) => {
      const status = isStream(req.path) ? 302 : 307;
      req.socket.end(rawResponse(status, { location: `${t.elsewhere}/v1${req.path.slice(3)}`, 'content-type': 'text/plain' }, 'moved', true));
    },
    errors: ['UNKNOWN', 'STREAM_INCOMPLETE', 'MALFORMED_BODY'],
  },
  {
    name: 'token echo: the Authorization header back in bodies, headers and events',
    handler: (req) => {
      const echo = req.headers.authorization ?? '';
      const token = echo.replace(/^Bearer\s+/i, '');
      const headers = {
        'x-request-id': echo,
        'x-ratelimit-limit': token,
        'x-ratelimit-remaining': echo,
        'x-ratelimit-reset': token,
        'www-authenticate': `Bearer realm="${token}"`,
        'set-cookie': `session=${token}`,
      };
      if (isStream(req.path)) {
        const events = [
          sse({ type: 'start', run_id: token }),
          sse({ type: 'token', content: token }),
          sse({ type: echo, run_id: token }),
          sse({ type: 'error', error: { code: token, message: echo }, run_id: echo }),
        ];
        req.socket.end(rawResponse(200, { 'content-type': 'text/event-stream', ...headers }, events.join(''), true));
        return;
      }
      const body = { error: { code: token, message: `bad token ${echo}`, details: { field: token, [token]: [echo] } }, request_id: echo };
      req.socket.end(rawResponse(401, { 'content-type': 'application/json', ...headers }, JSON.stringify(body), true));
    },
    errors: ['UNKNOWN', 'UNAUTHORIZED', 'STREAM_ERROR_EVENT', 'STREAM_INCOMPLETE'],
  },
  {
    name: 'hostile text: <script> and a forged ✅ PASS heading in flow ids and values',
    flowId: HOSTILE_FLOW_ID,
    escaped: '&lt;script&gt;alert(1)&lt;/script&gt;',
    handler: (req) => {
      const text = '<script>alert(1)</script>\n\n## ✅ PASS\n\n<img src=x onerror=alert(2)>';
      if (isStream(req.path)) {
        const events = [sse({ type: 'start', run_id: text }), sse({ type: 'token', content: text }), sse({ type: text, run_id: text }), sse({ type: 'end', run_id: text, usage: { total_tokens: text } })];
        req.socket.end(rawResponse(200, { 'content-type': 'text/event-stream' }, events.join(''), true));
        return;
      }
      const body = { id: text, flow_id: text, status: text, output: 7, error: { code: text }, created_at: text, completed_at: text, usage: { total_tokens: text } };
      // A header value cannot hold a line break; the rest of the text can.
      req.socket.end(rawResponse(200, { 'content-type': 'application/json', 'x-request-id': text.replace(/\n/g, ' ') }, JSON.stringify(body), true));
    },
    // Every answer breaks the contract: bad, with no error code.
    errors: [],
  },
  {
    name: 'nested millions deep: a 14 MB answer, an SSE event a million deep',
    handler: (req) => {
      const { body, event } = deepBodies();
      if (isStream(req.path)) req.socket.end(Buffer.concat([Buffer.from(`${SSE_HEAD}${sse({ type: 'start', run_id: 'run_1' })}`), event]));
      else req.socket.end(rawResponse(200, { 'content-type': 'application/json' }, body, true));
    },
    errors: ['MALFORMED_BODY', 'STREAM_INCOMPLETE'],
  },
  {
    name: 'duplicated response: every answer sent twice on a kept-alive connection',
    handler: (req) => {
      const answer = isStream(req.path)
        ? rawResponse(200, { 'content-type': 'text/event-stream' }, [sse({ type: 'start', run_id: 'run_1' }), sse({ type: 'token', content: 'a' }), sse({ type: 'end', run_id: 'run_1', usage: { total_tokens: 2, prompt_tokens: 1, completion_tokens: 1 } })].join(''))
        : rawResponse(200, { 'content-type': 'application/json' }, JSON.stringify({ id: 'run_1', flow_id: 'flow_1', status: 'completed', output: 'a', created_at: '2026-01-01T00:00:00Z', completed_at: '2026-01-01T00:00:01Z', usage: { total_tokens: 2, prompt_tokens: 1, completion_tokens: 1 } }));
      // Both in one write, as a proxy replaying its buffer sends them.
      req.socket.write(Buffer.concat([answer, answer]));
    },
    errors: ['PROTOCOL_ERROR'],
    // The probe's one-shot connections and the battery's undici requests end at the first answer (see docs/reliability.md).
    commands: ['capacity'],
  },
  {
    name: 'garbage rate-limit headers and Retry-After on a 429',
    handler: (req) => {
      const body = { error: { code: 'RATE_LIMITED', message: 'slow down' }, request_id: 'req_1' };
      const headers = { 'content-type': 'application/json', 'retry-after': 'NaN; DROP TABLE', 'x-ratelimit-limit': '1e999', 'x-ratelimit-remaining': '-7', 'x-ratelimit-reset': '0x10, 99999999999999999999' };
      req.socket.end(rawResponse(429, headers, JSON.stringify(body), true));
    },
    errors: ['RATE_LIMITED'],
  },
];
