import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { H1ResponseParser, type H1Head } from '../../src/transport/h1-parser.js';
import { emptyFraming, KeptValues, parseHead } from '../../src/transport/h1-head.js';

interface Parsed {
  heads: H1Head[];
  body: string;
  /** One entry per body piece: did the parser say it completed a known-length body? */
  lasts: boolean[];
  completions: boolean[];
  error: string | undefined;
}

function parser(maxHead?: number): { p: H1ResponseParser; out: Parsed } {
  const out: Parsed = { heads: [], body: '', lasts: [], completions: [], error: undefined };
  const p = new H1ResponseParser(
    {
      onHead: (h) => out.heads.push(h),
      onBody: (buf, s, e, last) => {
        out.body += buf.toString('latin1', s, e);
        out.lasts.push(last);
      },
      onComplete: (reusable) => out.completions.push(reusable),
    },
    maxHead,
  );
  return { p, out };
}

/** Feeds `wire` in pieces cut at `cuts`, each piece copied into a reused scratch buffer (as a socket read is). */
function feed(wire: string, cuts: readonly number[] = [], opts: { noBody?: boolean; eof?: boolean; maxHead?: number } = {}): Parsed {
  const { p, out } = parser(opts.maxHead);
  p.expect(opts.noBody ?? false);
  const bytes = Buffer.from(wire, 'latin1');
  const scratch = Buffer.alloc(bytes.length + 64, 0x41);
  const points = [...new Set(cuts.filter((c) => c > 0 && c < bytes.length))].sort((a, b) => a - b);
  let from = 0;
  for (const to of [...points, bytes.length]) {
    // The scratch buffer holds stale bytes past the piece, like the shared socket buffer does.
    const n = bytes.copy(scratch, 0, from, to);
    out.error ??= p.execute(scratch, 0, n);
    from = to;
  }
  if (opts.eof === true && out.error === undefined) out.error = p.eof();
  return out;
}

const OK_HEAD = 'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nX-RateLimit-Limit: 100\r\nServer: test\r\n';

describe('heads', () => {
  it('reads the status and keeps only the headers the client interprets, lower-cased', () => {
    const r = feed(`${OK_HEAD}Content-Length: 2\r\nX-Request-Id:  req_1 \r\n\r\n{}`);
    expect(r.error).toBeUndefined();
    expect(r.heads).toHaveLength(1);
    expect(r.heads[0]?.status).toBe(200);
    expect(r.heads[0]?.headers).toEqual({ 'content-type': 'application/json', 'x-ratelimit-limit': '100', server: 'test', 'x-request-id': 'req_1' });
    expect(r.body).toBe('{}');
    expect(r.completions).toEqual([true]);
  });

  it('keeps Server and Via, which tell a gateway\'s 429 from the service\'s', () => {
    const r = feed('HTTP/1.1 429 Too Many Requests\r\nServer: nginx/1.22.1\r\nVia: 1.1 edge-gw\r\nContent-Length: 0\r\n\r\n');
    expect(r.error).toBeUndefined();
    expect(r.heads[0]?.headers).toEqual({ server: 'nginx/1.22.1', via: '1.1 edge-gw' });
  });

  it('keeps every value of a repeated header, in order', () => {
    const r = feed('HTTP/1.1 429 Too Many\r\nx-ratelimit-remaining: 0\r\nX-RATELIMIT-REMAINING: 5\r\ncontent-length: 0\r\n\r\n');
    expect(r.heads[0]?.headers['x-ratelimit-remaining']).toEqual(['0', '5']);
    expect(r.completions).toEqual([true]);
  });

  it('skips 1xx heads and reports the final one', () => {
    const r = feed('HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 1\r\n\r\nx');
    expect(r.heads.map((h) => h.status)).toEqual([201]);
    expect(r.body).toBe('x');
  });

  it('accepts a status line without a reason phrase', () => {
    expect(feed('HTTP/1.1 204\r\n\r\n').heads[0]?.status).toBe(204);
  });

  it('reads the server keep-alive timeout hint in ms', () => {
    const r = feed('HTTP/1.1 200 OK\r\nKeep-Alive: max=100, timeout=5\r\nContent-Length: 0\r\n\r\n');
    expect(r.heads[0]?.keepAliveHintMs).toBe(5000);
  });
});

describe('kept values', () => {
  it('hands back the same string while a kept header repeats its bytes, a new one when they change', () => {
    const values = new KeptValues();
    const head = (limit: string, id: string): Buffer => Buffer.from(`HTTP/1.1 200 OK\r\nServer: x\r\nX-RateLimit-Limit: ${limit}\r\nx-request-id: ${id}\r\nDate: now\r\n\r\n`, 'latin1');
    const read = (b: Buffer): Record<string, unknown> => {
      const h = parseHead(b, 0, b.indexOf('\r\n\r\n'), emptyFraming(), values);
      if (typeof h === 'string') throw new Error(h);
      return h.headers as Record<string, unknown>;
    };
    const a = read(head('100', 'req_1'));
    const b = read(head('100', 'req_2'));
    const c = read(head('101', 'req_2'));
    expect(a).toEqual({ server: 'x', 'x-ratelimit-limit': '100', 'x-request-id': 'req_1' });
    expect(b).toEqual({ server: 'x', 'x-ratelimit-limit': '100', 'x-request-id': 'req_2' });
    expect(c).toEqual({ server: 'x', 'x-ratelimit-limit': '101', 'x-request-id': 'req_2' });
    // The unkept header (Date) never became a string; a repeated value is the very same string.
    expect(Object.keys(a)).toHaveLength(3);
    const long = 'v'.repeat(300);
    expect(read(head(long, 'r'))['x-ratelimit-limit']).toBe(long);
    expect(read(head('100', 'r'))['x-ratelimit-limit']).toBe('100');
  });
});

describe('framing', () => {
  it('marks a Content-Length body that arrives in one read as last, so it can be decoded in place', () => {
    const r = feed(`${OK_HEAD}Content-Length: 5\r\n\r\nhello`);
    expect(r.lasts).toEqual([true]);
    expect(r.body).toBe('hello');
  });

  it('decodes chunked bodies with extensions and trailers', () => {
    const r = feed(`${OK_HEAD}Transfer-Encoding: chunked\r\n\r\n5;ext=1\r\nhello\r\n1 \r\n \r\nA\r\n0123456789\r\n0\r\nX-Trailer: t\r\n\r\n`);
    expect(r.error).toBeUndefined();
    expect(r.body).toBe('hello 0123456789');
    expect(r.completions).toEqual([true]);
  });

  it('reads a body without a length to the close, and does not reuse the connection', () => {
    const cut = feed(`${OK_HEAD}\r\nall of it`);
    expect(cut.completions).toEqual([]);
    const r = feed(`${OK_HEAD}\r\nall of it`, [], { eof: true });
    expect(r.error).toBeUndefined();
    expect(r.body).toBe('all of it');
    expect(r.completions).toEqual([false]);
    expect(r.heads[0]?.keepAlive).toBe(false);
  });

  it('has no body for 204, 304 and HEAD, whatever Content-Length says', () => {
    expect(feed('HTTP/1.1 204 No Content\r\nContent-Length: 10\r\n\r\n').completions).toEqual([true]);
    expect(feed('HTTP/1.1 304 Not Modified\r\nContent-Length: 10\r\n\r\n').completions).toEqual([true]);
    expect(feed(`${OK_HEAD}Content-Length: 10\r\n\r\n`, [], { noBody: true }).completions).toEqual([true]);
  });

  it('does not reuse a connection after Connection: close, or after HTTP/1.0 without keep-alive', () => {
    expect(feed(`${OK_HEAD}Connection: close\r\nContent-Length: 0\r\n\r\n`).completions).toEqual([false]);
    expect(feed('HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n').completions).toEqual([false]);
    expect(feed('HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 0\r\n\r\n').completions).toEqual([true]);
  });

  it('reads Connection in any case and as a token list', () => {
    expect(feed(`${OK_HEAD}Connection: CLOSE\r\nContent-Length: 0\r\n\r\n`).completions).toEqual([false]);
    expect(feed(`${OK_HEAD}Connection: Upgrade, close\r\nContent-Length: 0\r\n\r\n`).completions).toEqual([false]);
    expect(feed('HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 0\r\n\r\n').completions).toEqual([true]);
  });

  it('lets chunked win over Content-Length, and then does not reuse the connection', () => {
    const r = feed(`${OK_HEAD}Content-Length: 100\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n`);
    expect(r.body).toBe('ok');
    expect(r.completions).toEqual([false]);
  });

  it('reports a connection closed before the body is complete', () => {
    const { p } = parser();
    p.expect(false);
    const wire = Buffer.from(`${OK_HEAD}Content-Length: 10\r\n\r\nabc`, 'latin1');
    expect(p.execute(wire, 0, wire.length)).toBeUndefined();
    expect(p.eof()).toBe('closed');
  });

  it('says nothing at a close when no response is outstanding', () => {
    const { p } = parser();
    expect(p.eof()).toBeUndefined();
  });
});

describe('errors', () => {
  const cases: [string, string, RegExp][] = [
    ['not HTTP', 'SSH-2.0-OpenSSH\r\n\r\n', /^not HTTP\/1.x: the target sent "SSH-2.0-OpenSSH\\r\\n\\r\\n"$/],
    ['bad status digits', 'HTTP/1.1 2x0 OK\r\n\r\n', /^not HTTP\/1.x: the target sent "HTTP\/1.1 2x0/],
    ['folded header', `${OK_HEAD}X-A: 1\r\n  continued\r\n\r\n`, /folded header/],
    ['header without colon', `${OK_HEAD}garbage\r\n\r\n`, /malformed header line/],
    ['space before colon', `${OK_HEAD}Content-Length : 1\r\n\r\nx`, /whitespace before a header colon/],
    ['conflicting lengths', `${OK_HEAD}Content-Length: 1\r\nContent-Length: 2\r\n\r\nxx`, /conflicting Content-Length/],
    ['non-numeric length', `${OK_HEAD}Content-Length: 1e3\r\n\r\n`, /Content-Length is not a number/],
    ['bad chunk size', `${OK_HEAD}Transfer-Encoding: chunked\r\n\r\nzz\r\n`, /malformed chunk size/],
    ['chunk overrun', `${OK_HEAD}Transfer-Encoding: chunked\r\n\r\n2\r\nabc\r\n0\r\n\r\n`, /chunk data longer than its size/],
    ['protocol switch', 'HTTP/1.1 101 Switching Protocols\r\nUpgrade: h2c\r\n\r\n', /protocol switch/],
    ['bytes after the response', `${OK_HEAD}Content-Length: 1\r\n\r\nxy`, /no request outstanding/],
  ];
  for (const [name, wire, message] of cases) {
    it(`rejects ${name}`, () => {
      expect(feed(wire).error).toMatch(message);
    });
  }

  // A target that speaks something else is known from its first bytes: no head end is needed.
  const early: [string, string, RegExp][] = [
    ['an SSH banner', 'SSH-2.0-OpenSSH_9.2\r\n', /^not HTTP\/1.x: the target sent "SSH-2.0-OpenSSH_9.2\\r\\n"$/],
    ['an HTML page', '<!doctype html><html>', /^not HTTP\/1.x: the target sent "<!doctype html><html>"$/],
    ['an HTTP/2 SETTINGS frame', '\x00\x00\x12\x04\x00\x00\x00\x00\x00', /^not HTTP\/1.x: the target sent "\\x00\\x00\\x12\\x04/],
    ['status 099', 'HTTP/1.1 099 Odd\r\n', /^not HTTP\/1.x: status 099 is outside 100–599$/],
    ['status 600', 'HTTP/1.1 600 Odd\r\n', /status 600 is outside 100–599/],
    ['a head ended by bare LFs', 'HTTP/1.1 200 OK\nContent-Length: 2\n\nhi', /a head line ended with a bare LF/],
  ];
  for (const [name, wire, message] of early) {
    it(`rejects ${name} at once, in one piece or byte by byte`, () => {
      expect(feed(wire).error).toMatch(message);
      const bytes = Array.from({ length: wire.length }, (_, i) => i);
      expect(feed(wire, bytes).error).toMatch(/^not HTTP\/1/);
    });
  }

  it('skips empty lines before a status line and between responses (RFC 9112 §2.2)', () => {
    const wire = '\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi';
    for (const cuts of [[], [1], [2, 3], [5]]) {
      const out = feed(wire, cuts);
      expect(out.error).toBeUndefined();
      expect(out.body).toBe('hi');
      expect(out.completions).toEqual([true]);
    }
    const { p, out } = parser();
    p.expect(false);
    const first = Buffer.from('HTTP/1.1 204 No Content\r\n\r\n\r\n', 'latin1');
    expect(p.execute(first, 0, first.length)).toBeUndefined();
    expect(out.completions).toEqual([true]);
  });

  it('rejects a head larger than the cap, even when it arrives in pieces', () => {
    const big = `${OK_HEAD}X-Big: ${'a'.repeat(600)}\r\nContent-Length: 0\r\n\r\n`;
    expect(feed(big, [], { maxHead: 256 }).error).toMatch(/head too large/);
    expect(feed(big, [100, 200, 300, 400, 500], { maxHead: 256 }).error).toMatch(/head too large/);
    expect(feed(big, [], { maxHead: 1024 }).error).toBeUndefined();
  });

  it('rejects data that arrives when no response was expected', () => {
    const { p } = parser();
    const wire = Buffer.from('HTTP/1.1 200 OK\r\n\r\n', 'latin1');
    expect(p.execute(wire, 0, wire.length)).toMatch(/no request outstanding/);
  });
});

describe('reads cut anywhere', () => {
  const wires: [string, string, boolean][] = [
    [`${OK_HEAD}Content-Length: 26\r\n\r\nabcdefghijklmnopqrstuvwxyz`, 'abcdefghijklmnopqrstuvwxyz', false],
    [`HTTP/1.1 100 Continue\r\n\r\n${OK_HEAD}Transfer-Encoding: gzip, chunked\r\n\r\n3;a=b\r\nabc\r\n10\r\n0123456789abcdef\r\n0\r\nT: 1\r\n\r\n`, 'abc0123456789abcdef', false],
    [`${OK_HEAD}\r\nuntil the close`, 'until the close', true],
  ];
  it('gives the same head, body and completion however the bytes are split', () => {
    for (const [wire, body, eof] of wires) {
      const whole = feed(wire, [], { eof });
      expect(whole.error).toBeUndefined();
      expect(whole.body).toBe(body);
      fc.assert(
        fc.property(fc.array(fc.integer({ min: 1, max: wire.length - 1 }), { maxLength: 12 }), (cuts) => {
          const r = feed(wire, cuts, { eof });
          expect(r.error).toBeUndefined();
          expect(r.heads).toEqual(whole.heads);
          expect(r.body).toBe(body);
          expect(r.completions).toEqual(whole.completions);
        }),
        { numRuns: 300 },
      );
    }
  });

  it('reads a second response after the first completes (a reused connection)', () => {
    const { p, out } = parser();
    for (const body of ['first', 'second!']) {
      p.expect(false);
      const wire = Buffer.from(`${OK_HEAD}Content-Length: ${body.length}\r\n\r\n${body}`, 'latin1');
      expect(p.execute(wire, 0, wire.length)).toBeUndefined();
    }
    expect(out.body).toBe('firstsecond!');
    expect(out.completions).toEqual([true, true]);
  });
});
