/**
 * The one bounded body reader: a byte cap and a whole-body deadline that no arriving byte
 * restarts, with the run's error codes (`FG_BODY_TOO_LARGE` → MALFORMED_BODY,
 * `FG_REQUEST_DEADLINE` → TIMEOUT). Driven by a fake clock: no timing is guessed.
 */
import { describe, expect, it } from 'vitest';
import { ByteBudget, readBoundedBody, type BodySource } from '../../src/transport/bounded-body.js';
import { classifyTransportError } from '../../src/transport/wire-errors.js';
import { createFakeClock, NS_PER_MS } from '../../src/core/clock.js';

/** A source that yields what `next` gives, and records whether it was destroyed. */
function source(next: () => Promise<Uint8Array | undefined>): BodySource & { destroyed: boolean } {
  const s = {
    destroyed: false,
    destroy() {
      s.destroyed = true;
    },
    async *[Symbol.asyncIterator]() {
      for (;;) {
        const c = await next();
        if (c === undefined || s.destroyed) return;
        yield c;
      }
    },
  };
  return s;
}

describe('readBoundedBody', () => {
  it('reads a whole body as UTF-8 with a BOM dropped', async () => {
    const parts = [Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"a":"'), Buffer.from('é"}')];
    const r = await readBoundedBody(source(async () => parts.shift()), { clock: createFakeClock() });
    expect(r).toEqual({ ok: true, text: '{"a":"é"}', bytes: 13 });
  });

  it('fails past the cap as MALFORMED_BODY and lets go of the source', async () => {
    const src = source(async () => Buffer.alloc(1024, 0x20));
    const r = await readBoundedBody(src, { clock: createFakeClock(), maxBytes: 4096 });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect((r.error as { code?: string }).code).toBe('FG_BODY_TOO_LARGE');
    expect(classifyTransportError(r.error, undefined)).toBe('MALFORMED_BODY');
    expect(r.bytes).toBe(5 * 1024);
    expect(src.destroyed).toBe(true);
  });

  it('ends at the deadline however steadily bytes keep arriving: it never restarts', async () => {
    const clock = createFakeClock();
    // A byte every 100 ms, forever: a stall timeout restarted by each byte would never fire.
    const src = source(async () => {
      clock.advance(100 * NS_PER_MS);
      return Buffer.from(' ');
    });
    const r = await readBoundedBody(src, { clock, deadlineNs: clock.nowNs() + 1000 * NS_PER_MS, deadlineMs: 1000 });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(classifyTransportError(r.error, undefined)).toBe('TIMEOUT');
    expect((r.error as Error).message).toContain('1000 ms');
    expect(r.bytes).toBeLessThanOrEqual(10);
    expect(src.destroyed).toBe(true);
  });

  it('ends at the deadline when the source goes silent and ignores destroy', async () => {
    const clock = createFakeClock();
    const silent: BodySource = { [Symbol.asyncIterator]: () => ({ next: () => new Promise<IteratorResult<Uint8Array>>(() => undefined) }) };
    const pending = readBoundedBody(silent, { clock, deadlineNs: clock.nowNs() + 500 * NS_PER_MS });
    clock.advance(500 * NS_PER_MS);
    const r = await pending;
    expect(r.ok).toBe(false);
    if (!r.ok) expect(classifyTransportError(r.error, undefined)).toBe('TIMEOUT');
  });
});

describe('ByteBudget', () => {
  it('says nothing within the cap, then the same error every time after', () => {
    const b = new ByteBudget(10);
    expect(b.take(6)).toBeUndefined();
    expect(b.take(4)).toBeUndefined();
    const over = b.take(1);
    expect(classifyTransportError(over, undefined)).toBe('MALFORMED_BODY');
    expect(b.take(1)).toBe(over);
    expect(b.bytes).toBe(11);
  });
});
