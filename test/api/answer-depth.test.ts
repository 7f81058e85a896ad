/**
 * Answers nested deeper than `MAX_ANSWER_DEPTH` are refused before `JSON.parse` builds them
 * (issue 41: a 14 MB answer nested 7 million deep cost 1.3 GB and a 9 s stall to parse), and
 * a body in a learned layout is accepted without `JSON.parse` at all. Held with a spy on
 * `JSON.parse`: the refusal must come before it, not after it.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createFakeClock } from '../../src/core/clock.js';
import { jsonDeeperThan, jsonTextDepth, MAX_ANSWER_DEPTH } from '../../src/core/input-limits.js';
import { successResult, errorResult, type ResponseContext } from '../../src/api/response.js';
import { flowListSchema, runSchema } from '../../src/api/schemas.js';
import { toTimedEvent } from '../../src/api/sse-decoder.js';
import { BodyMemo } from '../../src/api/body-memo.js';
import { flowListBody } from '../../bench/lib/flow-list-body.js';

const T = { headersNs: 1, endNs: 2, sentNs: 0, connectNs: 0, tlsNs: 0 };
/** The transport's whole answer: status, no headers, the body. */
const answer = (status: number, text: string) => ({ ...T, status, headers: {}, text });
const ctx = (bodies?: BodyMemo): ResponseContext => ({ clock: createFakeClock(), validate: true, redact: (s) => s, bodies });
const nested = (depth: number): string => `${'['.repeat(depth)}${']'.repeat(depth)}`;

afterEach(() => vi.restoreAllMocks());

describe('answer depth', () => {
  it('jsonDeeperThan agrees with the full scan on either side of the limit, and counts brackets in strings only as text', () => {
    for (const d of [1, MAX_ANSWER_DEPTH - 1, MAX_ANSWER_DEPTH, MAX_ANSWER_DEPTH + 1, 5000]) {
      const text = `{"a":${nested(d - 1)}}`;
      expect(jsonDeeperThan(text), String(d)).toBe(jsonTextDepth(text, MAX_ANSWER_DEPTH) > MAX_ANSWER_DEPTH);
      expect(jsonDeeperThan(text)).toBe(d > MAX_ANSWER_DEPTH);
    }
    // Many brackets, none nested deeper than two (the native count passes the limit, the scan decides).
    expect(jsonDeeperThan(`[${'[],'.repeat(1000)}[]]`)).toBe(false);
    expect(jsonDeeperThan(`["${'['.repeat(1000)}"]`)).toBe(false);
  });

  it('a 2xx body nested millions deep is MALFORMED_BODY, refused before JSON.parse', () => {
    const parse = vi.spyOn(JSON, 'parse');
    const r = successResult(ctx(), 'run', runSchema, undefined, answer(200, nested(7_000_000)), 0);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.error.code).toBe('MALFORMED_BODY');
    expect(!r.ok && r.error.message).toContain(`nested deeper than ${MAX_ANSWER_DEPTH}`);
    expect(parse).not.toHaveBeenCalled();
    const e = errorResult(ctx(), 'run', answer(500, `{"error":${nested(100_000)}}`), 0);
    expect(e.ok).toBe(false);
    expect(parse).not.toHaveBeenCalled();
  });

  it('an SSE event nested a million deep is malformed, refused before JSON.parse', () => {
    const parse = vi.spyOn(JSON, 'parse');
    const data = `${'{"a":'.repeat(1_000_000)}1${'}'.repeat(1_000_000)}`;
    expect(toTimedEvent(data, 5)).toEqual({ type: 'malformed', atNs: 5, data });
    expect(parse).not.toHaveBeenCalled();
    expect(toTimedEvent('{"type":"token","content":"a"}', 6).type).toBe('token');
  });

  it('a unique body in a learned layout is accepted without JSON.parse, its value parsed when read', () => {
    const c = ctx(new BodyMemo());
    const first = flowListBody();
    expect(successResult(c, 'listFlows', flowListSchema, undefined, answer(200, first), 0).violations).toEqual([]);
    const parse = vi.spyOn(JSON, 'parse');
    const next = first.replaceAll('flow_', 'flow_unique_');
    const r = successResult(c, 'listFlows', flowListSchema, undefined, answer(200, next), 0);
    expect(r.ok).toBe(true);
    expect(r.violations).toEqual([]);
    expect(parse).not.toHaveBeenCalled();
    expect((r as { value: { flows: { id: string }[] } }).value.flows[0]?.id).toMatch(/^flow_unique_/);
    expect(parse).toHaveBeenCalledTimes(1);
    // A body that breaks the contract still takes the parsed path, and zod names what broke.
    const bad = successResult(c, 'listFlows', flowListSchema, undefined, answer(200, next.replace('"published"', '"archived"')), 0);
    expect(bad.violations).toEqual([{ op: 'listFlows', path: 'flows[0].status', expected: 'one of published|draft', got: '"archived"' }]);
  });
});
