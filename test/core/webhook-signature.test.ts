import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { computeSignature, parseSignatureHeader, signPayload, verifySignature } from '../../src/core/webhook-signature.js';

const BODY = '{"event":"flow.run.completed","data":{}}';

describe('signing', () => {
  it('signs `${t}.${body}` with HMAC-SHA256 in the documented header shape', () => {
    const expected = createHmac('sha256', 'k').update(`1700000000.${BODY}`).digest('hex');
    expect(computeSignature('k', 1_700_000_000, BODY)).toBe(expected);
    expect(signPayload('k', 1_700_000_000, BODY)).toBe(`t=1700000000,v1=${expected}`);
    expect(computeSignature('k', 1_700_000_000, Buffer.from(BODY))).toBe(expected);
  });

  it('verifies a good signature and names why a bad one fails', () => {
    const h = signPayload('k', 1000, BODY);
    expect(verifySignature('k', h, BODY, { nowS: 1100 })).toEqual({ ok: true, t: 1000 });
    expect(verifySignature('k', h, `${BODY} `, { nowS: 1100 })).toEqual({ ok: false, reason: 'mismatch' });
    expect(verifySignature('other', h, BODY, { nowS: 1100 })).toEqual({ ok: false, reason: 'mismatch' });
    expect(verifySignature('k', h, BODY, { nowS: 1000 + 301 })).toEqual({ ok: false, reason: 'expired' });
    expect(verifySignature('k', h, BODY, { nowS: 5000, toleranceS: Infinity })).toEqual({ ok: true, t: 1000 });
    expect(verifySignature('k', undefined, BODY)).toEqual({ ok: false, reason: 'missing' });
    expect(verifySignature('k', 'v1=abc', BODY)).toEqual({ ok: false, reason: 'malformed' });
  });

  it('accepts any one of several v1 signatures (secret rotation)', () => {
    const good = computeSignature('new', 10, BODY);
    const header = `t=10,v1=${computeSignature('old-other', 10, BODY)},v1=${good}`;
    expect(verifySignature('new', header, BODY, { nowS: 10 })).toEqual({ ok: true, t: 10 });
    expect(parseSignatureHeader(header)?.v1).toHaveLength(2);
  });
});
