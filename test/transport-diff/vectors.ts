/**
 * Response vectors for the differential suite: each is the exact bytes a server sends (then it
 * closes the connection). Written for this suite, after the kinds of cases llhttp's own
 * response tests cover: framing by length, chunks, close; 1xx; malformed status lines, heads
 * and chunks; targets that speak something else.
 */
export interface Vector {
  readonly name: string;
  readonly wire: string;
  /** Where flowgauge deliberately differs from llhttp: the id of the policy entry in docs/http-strictness.md. */
  readonly differs?: string;
}

const J = '{"ok":true}';
const len = (s: string): number => Buffer.byteLength(s, 'latin1');

export const VECTORS: readonly Vector[] = [
  { name: 'content-length body', wire: `HTTP/1.1 200 OK\r\nContent-Length: ${len(J)}\r\n\r\n${J}` },
  { name: 'empty body by length', wire: 'HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n' },
  { name: 'HTTP/1.0 with length', wire: `HTTP/1.0 200 OK\r\nContent-Length: ${len(J)}\r\n\r\n${J}` },
  { name: 'no reason phrase', wire: `HTTP/1.1 200\r\nContent-Length: 2\r\n\r\nok` },
  { name: 'reason with spaces', wire: `HTTP/1.1 404 Not Found Here\r\nContent-Length: 2\r\n\r\nno` },
  { name: '204 without length', wire: 'HTTP/1.1 204 No Content\r\n\r\n' },
  { name: 'chunked', wire: 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nWiki\r\n5\r\npedia\r\n0\r\n\r\n' },
  { name: 'chunk extensions', wire: 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4;name=value\r\nWiki\r\n0\r\n\r\n' },
  { name: 'chunked with trailers', wire: 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nhi\r\n0\r\nX-Trailer: 1\r\n\r\n' },
  { name: 'upper-case chunk size', wire: 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nA\r\n0123456789\r\n0\r\n\r\n' },
  { name: 'body delimited by close', wire: 'HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nuntil the end' },
  { name: '100 Continue before the answer', wire: `HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok` },
  { name: 'two 1xx before the answer', wire: `HTTP/1.1 102 Processing\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok` },
  { name: 'header value with tabs', wire: 'HTTP/1.1 200 OK\r\nX-A:\t1\t\r\nContent-Length: 2\r\n\r\nok' },
  { name: 'many headers', wire: `HTTP/1.1 200 OK\r\n${Array.from({ length: 40 }, (_, i) => `X-H${i}: ${i}\r\n`).join('')}Content-Length: 2\r\n\r\nok` },
  { name: 'duplicate equal Content-Length', wire: 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\nok', differs: 'duplicate-equal-length' },
  { name: 'conflicting Content-Length', wire: 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nokk' },
  { name: 'non-numeric Content-Length', wire: 'HTTP/1.1 200 OK\r\nContent-Length: 2x\r\n\r\nok' },
  { name: 'obs-fold header', wire: 'HTTP/1.1 200 OK\r\nX-A: 1\r\n  2\r\nContent-Length: 2\r\n\r\nok' },
  { name: 'space before colon', wire: 'HTTP/1.1 200 OK\r\nContent-Length : 2\r\n\r\nok' },
  { name: 'header without colon', wire: 'HTTP/1.1 200 OK\r\nbroken\r\nContent-Length: 2\r\n\r\nok' },
  { name: 'bad chunk size', wire: 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhi\r\n0\r\n\r\n' },
  { name: 'chunk longer than its size', wire: 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nhello\r\n0\r\n\r\n' },
  { name: 'truncated chunked body', wire: 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nWi' },
  { name: 'truncated length body', wire: 'HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort' },
  { name: 'SSH banner', wire: 'SSH-2.0-OpenSSH_9.2p1\r\n' },
  { name: 'HTML with no status line', wire: '<!doctype html><html><body>gateway</body></html>' },
  { name: 'HTTP/2 SETTINGS frame', wire: '\x00\x00\x12\x04\x00\x00\x00\x00\x00\x00\x03\x00\x00\x00\x64' },
  { name: 'HTTP/2 status line', wire: 'HTTP/2 200\r\ncontent-length: 2\r\n\r\nok' },
  { name: 'bad status digits', wire: 'HTTP/1.1 2x0 OK\r\nContent-Length: 2\r\n\r\nok' },
  { name: 'status 099', wire: 'HTTP/1.1 099 Odd\r\nContent-Length: 2\r\n\r\nok', differs: 'status-range' },
  { name: 'status 600', wire: 'HTTP/1.1 600 Odd\r\nContent-Length: 2\r\n\r\nok', differs: 'status-range' },
  { name: 'head ended by bare LF', wire: 'HTTP/1.1 200 OK\nContent-Length: 2\n\nok' },
  { name: 'empty line before the status line', wire: '\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok' },
  { name: 'protocol switch', wire: 'HTTP/1.1 101 Switching Protocols\r\nUpgrade: h2c\r\nConnection: Upgrade\r\n\r\n' },
];
