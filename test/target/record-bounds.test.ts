/**
 * The run and session stores stay within their count and byte bounds however many records a
 * long run writes (driven directly: no HTTP), recent records still read, and a forgotten one
 * reads as the interface's 404 NOT_FOUND.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createFakeClock } from '../../src/core/clock.js';
import { DEFAULT_MAX_RECORD_BYTES, DEFAULT_MAX_RECORDS, resolveReferenceOptions } from '../../src/target/options.js';
import { createPrng } from '../../src/target/prng.js';
import { createRecordStore } from '../../src/target/record-store.js';
import { createRunEngine, RUN_RECORD_BYTES, type RunRecord } from '../../src/target/runs.js';
import { createSessionStore, MESSAGE_RECORD_BYTES, SESSION_RECORD_BYTES } from '../../src/target/sessions.js';
import { createTimerSet } from '../../src/target/timers.js';
import { call, closeAll, start } from './helpers.js';

afterEach(closeAll);

const DEFAULT_LIMITS = { maxRecords: DEFAULT_MAX_RECORDS, maxBytes: DEFAULT_MAX_RECORD_BYTES };
const MANY = 200_000;

function engine(limits = DEFAULT_LIMITS): ReturnType<typeof createRunEngine> {
  const clock = createFakeClock();
  return createRunEngine({
    clock,
    timers: createTimerSet(clock),
    prng: createPrng(1),
    seed: 1,
    // No latency: each run finishes inside start(), as a long run's old records have.
    latency: resolveReferenceOptions({ latency: 'none' }).latency,
    failureRate: 0,
    limits,
    hooks: { started: () => undefined, finished: () => undefined },
  });
}

describe('record bounds', () => {
  it(`keeps at most the default count of runs after ${MANY.toLocaleString('en')} runs, the newest readable`, () => {
    const runs = engine();
    let first: RunRecord | undefined;
    let last: RunRecord | undefined;
    for (let i = 0; i < MANY; i++) {
      last = runs.start('flow_a', 'acct_a', `input ${i % 97}`, undefined, 'run');
      first ??= last;
    }
    const held = runs.held();
    expect(held.records).toBe(DEFAULT_MAX_RECORDS);
    expect(held.bytes).toBe(DEFAULT_MAX_RECORDS * RUN_RECORD_BYTES);
    expect(held.bytes).toBeLessThanOrEqual(DEFAULT_MAX_RECORD_BYTES);
    expect(held.forgotten).toBe(MANY - DEFAULT_MAX_RECORDS);
    expect(runs.get((first as RunRecord).id)).toBeUndefined();
    const newest = runs.get((last as RunRecord).id) as RunRecord;
    expect(newest.status).toBe('completed');
    // The text is rebuilt from the seed: what the view says is what the stream sent.
    expect(runs.view(newest).output).toBe(runs.tokens(newest).join(''));
    expect(runs.view(newest).output).not.toBe('');
  });

  it('a finished run keeps no token text or times', () => {
    const runs = engine();
    const run = runs.start('flow_a', 'acct_a', 'hello there', undefined, 'run');
    expect(run.status).toBe('completed');
    expect(run.timesNs).toEqual([]);
    const text = runs.view(run).output as string;
    expect(text.length).toBeGreaterThan(0);
    expect(Object.values(run).some((v) => typeof v === 'string' && v.includes(text))).toBe(false);
    expect(Object.values(run).filter((v) => Array.isArray(v) && v.length > 0)).toEqual([]);
  });

  it(`keeps sessions within the byte budget when they are large (${MANY.toLocaleString('en')} sessions of 1 kB)`, () => {
    const maxBytes = 8 * 1024 * 1024;
    const sessions = createSessionStore(createPrng(2), { maxRecords: DEFAULT_MAX_RECORDS, maxBytes });
    const input = 'w '.repeat(512);
    const ids: string[] = [];
    for (let i = 0; i < MANY; i++) {
      const s = sessions.create('acct_a', 'flow_a', `user_${i}`, { i }, 0);
      sessions.append(s, 'user', input, 0);
      sessions.append(s, 'assistant', 'The flow processed your request', 0);
      if (i === 0 || i === MANY - 1) ids.push(s.id);
    }
    const held = sessions.held();
    expect(held.bytes).toBeLessThanOrEqual(maxBytes);
    // The byte budget bound first: each session counts 2 kB+ of text.
    expect(held.records).toBeLessThan(DEFAULT_MAX_RECORDS);
    expect(held.records).toBeGreaterThan(maxBytes / (SESSION_RECORD_BYTES + 2 * MESSAGE_RECORD_BYTES + 2 * 2 * input.length));
    expect(held.records + held.forgotten).toBe(MANY);
    expect(sessions.get(ids[0] as string)).toBeUndefined();
    expect(sessions.get(ids[1] as string)?.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
  });

  it('a session that outgrows the budget by its messages is forgotten, not kept past it', () => {
    const sessions = createSessionStore(createPrng(2), { maxRecords: 10, maxBytes: 64 * 1024 });
    const s = sessions.create('acct_a', 'flow_a', 'u', {}, 0);
    for (let i = 0; i < 100; i++) sessions.append(s, 'user', 'x'.repeat(1000), 0);
    expect(sessions.get(s.id)).toBeUndefined();
    expect(sessions.held()).toEqual({ records: 0, bytes: 0, forgotten: 1 });
  });

  it('the store forgets oldest first under either limit, and re-adding an id does not double count', () => {
    const store = createRecordStore<{ id: string; bytes: number }>({ maxRecords: 3, maxBytes: 100 });
    for (const id of ['a', 'b', 'c', 'd']) store.add({ id, bytes: 10 });
    expect([store.get('a'), store.size, store.bytes]).toEqual([undefined, 3, 30]);
    store.add({ id: 'd', bytes: 20 });
    expect([store.size, store.bytes]).toEqual([3, 40]);
    store.add({ id: 'e', bytes: 80 });
    // 120 bytes: b and c go; d (moved to newest when re-added) and e fit the 100 exactly.
    expect(['b', 'c', 'd', 'e'].map((id) => store.get(id) !== undefined)).toEqual([false, false, true, true]);
    expect([store.size, store.bytes, store.forgotten]).toEqual([2, 100, 3]);
  });
});

describe('reads of forgotten records', () => {
  it('answer 404 NOT_FOUND as for an unknown id, while recent ones still read', async () => {
    const s = await start({ latency: 'none', maxRecords: 3 });
    const token = s.tokens.pro;
    const flows = await call(s.baseUrl, 'GET', '/flows', { token });
    const flowId = flows.json.flows[0].id as string;
    const runIds: string[] = [];
    const sessionIds: string[] = [];
    for (let i = 0; i < 4; i++) {
      runIds.push((await call(s.baseUrl, 'POST', `/flows/${flowId}/run`, { token, body: { input: `hi ${i}` } })).json.id);
      sessionIds.push((await call(s.baseUrl, 'POST', '/sessions', { token, body: { flow_id: flowId } })).json.id);
    }
    const oldRun = await call(s.baseUrl, 'GET', `/runs/${runIds[0]}`, { token });
    expect(oldRun.status).toBe(404);
    expect(oldRun.json).toEqual({
      error: { code: 'NOT_FOUND', message: 'run not found', details: { field: 'run_id', reason: 'no run with this id' } },
      request_id: expect.any(String),
    });
    const oldSession = await call(s.baseUrl, 'GET', `/sessions/${sessionIds[0]}/history`, { token });
    expect(oldSession.status).toBe(404);
    expect(oldSession.json.error.code).toBe('NOT_FOUND');
    const recentRun = await call(s.baseUrl, 'GET', `/runs/${runIds[3]}`, { token });
    expect([recentRun.status, recentRun.json.status]).toEqual([200, 'completed']);
    expect((await call(s.baseUrl, 'GET', `/sessions/${sessionIds[3]}/history`, { token })).status).toBe(200);
    expect(s.stats().records.runs).toMatchObject({ records: 3, forgotten: 1 });
    expect(s.stats().records.sessions).toMatchObject({ records: 3, forgotten: 1 });
  });
});
