import { describe, expect, it } from 'vitest';
import { classifySli } from '../../src/slo/sli.js';
import type { SliClass, ThrottleClass } from '../../src/core/types.js';
import type { RequestSample } from '../../src/core/types.js';
import { sample, streamTiming } from '../collect/samples.js';

const complete = streamTiming(0, { start: 1e6, tokens: [2e6, 3e6], end: 4e6 });
const noEnd = streamTiming(0, { start: 1e6, tokens: [2e6], end: 0, complete: false });

const rows: [string, Partial<RequestSample>, ThrottleClass, SliClass][] = [
  ['2xx run completed', { status: 200, runStatus: 'completed' }, 'none', 'good'],
  ['2xx run running (async)', { status: 200, runStatus: 'running' }, 'none', 'good'],
  ['2xx list with no run status', { op: 'listFlows', status: 200 }, 'none', 'good'],
  ['2xx stream ended with end', { op: 'stream', status: 200, stream: complete }, 'none', 'good'],
  ['2xx run failed', { status: 200, runStatus: 'failed' }, 'none', 'bad'],
  ['2xx getRun failed', { op: 'getRun', status: 200, runStatus: 'failed' }, 'none', 'bad'],
  ['2xx stream without end', { op: 'stream', status: 200, stream: noEnd, errorCode: 'STREAM_INCOMPLETE' }, 'none', 'bad'],
  ['2xx stream without end, no code', { op: 'stream', status: 200, stream: noEnd }, 'none', 'bad'],
  ['2xx stream with error event', { op: 'stream', status: 200, stream: complete, errorCode: 'STREAM_ERROR_EVENT' }, 'none', 'bad'],
  ['2xx malformed body', { status: 200, errorCode: 'MALFORMED_BODY' }, 'none', 'bad'],
  [
    '2xx with a contract violation',
    { status: 200, violations: [{ op: 'run', path: 'usage.total_tokens', expected: 'integer', got: 'string' }] },
    'none',
    'bad',
  ],
  ['500', { status: 500, errorCode: 'INTERNAL_ERROR' }, 'none', 'bad'],
  ['503', { status: 503, errorCode: 'SERVICE_UNAVAILABLE' }, 'none', 'bad'],
  ['timeout (no response)', { status: 0, errorCode: 'HEADERS_TIMEOUT', headersNs: undefined }, 'none', 'bad'],
  ['connection refused', { status: 0, errorCode: 'CONNECTION_REFUSED', headersNs: undefined }, 'none', 'bad'],
  ['429 premature', { status: 429, errorCode: 'RATE_LIMITED' }, 'premature', 'bad'],
  ['429 expected', { status: 429, errorCode: 'RATE_LIMITED' }, 'expected', 'excluded'],
  ['429 not judged', { status: 429, errorCode: 'RATE_LIMITED' }, 'none', 'bad'],
  ['400 on a negative test', { status: 400, errorCode: 'INVALID_REQUEST', negative: true }, 'none', 'excluded'],
  ['401 on a negative test', { status: 401, errorCode: 'UNAUTHORIZED', negative: true }, 'none', 'excluded'],
  ['403 on a negative test', { status: 403, errorCode: 'FORBIDDEN', negative: true }, 'none', 'excluded'],
  ['404 on a negative test', { status: 404, errorCode: 'NOT_FOUND', negative: true }, 'none', 'excluded'],
  ['2xx on a negative test', { status: 200, negative: true }, 'none', 'excluded'],
  ['500 on a negative test', { status: 500, errorCode: 'INTERNAL_ERROR', negative: true }, 'none', 'bad'],
  ['timeout on a negative test', { status: 0, errorCode: 'BODY_TIMEOUT', negative: true }, 'none', 'bad'],
  ['401 not on a negative test (wrong token)', { status: 401, errorCode: 'UNAUTHORIZED' }, 'none', 'bad'],
  ['404 not on a negative test (flow should exist)', { op: 'getFlow', status: 404, errorCode: 'NOT_FOUND' }, 'none', 'bad'],
  ['400 not on a negative test', { status: 400, errorCode: 'INVALID_REQUEST' }, 'none', 'bad'],
  ['3xx (redirect not followed)', { status: 302 }, 'none', 'bad'],
];

describe('classifySli', () => {
  for (const [name, over, throttle, expected] of rows) {
    it(`${name} → ${expected}`, () => {
      expect(classifySli(sample(over), throttle)).toBe(expected);
    });
  }
});
