import { afterEach, describe, expect, it, vi } from 'vitest';
import { createFakeClock } from '../../src/core/clock.js';
import type { ReferenceService } from '../../src/target/index.js';
import { barrier, call, closeAll, header, ms, openStream, start } from './helpers.js';

afterEach(closeAll);

async function firstFlow(s: ReferenceService): Promise<string> {
  return (await call(s.baseUrl, 'GET', '/flows', { token: s.tokens.pro })).json.flows[0].id as string;
}

const FIXED = { ttftMs: 100, itlMs: 20, jitter: 0, runOverheadMs: 0, tokens: { min: 4, max: 4 } };

describe('POST /flows/{id}/stream', () => {
  it('sends start, then tokens, then end with usage matching the tokens', async () => {
    const s = await start({ latency: 'none' });
    const id = await firstFlow(s);
    const st = await openStream(s.baseUrl, `/flows/${id}/stream`, s.tokens.pro, { input: 'two words' });
    await st.done;
    expect(st.status).toBe(200);
    expect(header(st, 'content-type')).toBe('text/event-stream; charset=utf-8');
    expect(header(st, 'x-ratelimit-limit')).toBe('1000');
    const ev = st.events();
    expect(ev[0]).toEqual({ type: 'start', run_id: expect.stringMatching(/^run_/) });
    const tokens = ev.slice(1, -1);
    expect(tokens.every((e) => e.type === 'token' && typeof e.content === 'string')).toBe(true);
    const end = ev.at(-1);
    expect(end).toMatchObject({ type: 'end', run_id: ev[0].run_id });
    expect(end.usage).toEqual({ total_tokens: 2 + tokens.length, prompt_tokens: 2, completion_tokens: tokens.length });
    expect(st.raw()).toMatch(/^data: \{.*\}\n\n/);
    const run = await call(s.baseUrl, 'GET', `/runs/${ev[0].run_id}`, { token: s.tokens.pro });
    expect(run.json.output).toBe(tokens.map((t) => t.content).join(''));
  });

  it('writes each token at its scheduled time on the clock', async () => {
    const clock = createFakeClock();
    const s = await start({ clock, latency: FIXED });
    const id = await firstFlow(s);
    const st = await openStream(s.baseUrl, `/flows/${id}/stream`, s.tokens.pro, { input: 'x' });
    const tokens = () => st.events().filter((e) => e.type === 'token').length;
    await vi.waitFor(() => expect(st.events()).toHaveLength(1));
    // Tokens are due at 100, 120, 140 and 160 ms; the end comes with the last one.
    const steps: Array<[number, number]> = [[99, 0], [1, 1], [19, 1], [1, 2], [19, 2], [1, 3], [19, 3], [1, 4]];
    for (const [step, expected] of steps) {
      clock.advance(ms(step));
      if (expected > tokens()) await vi.waitFor(() => expect(tokens()).toBe(expected));
      await barrier(s);
      expect(tokens()).toBe(expected);
    }
    await st.done;
    expect(st.events().at(-1).type).toBe('end');
  });

  it('sends each token in its own write', async () => {
    const clock = createFakeClock();
    const s = await start({ clock, latency: FIXED });
    const id = await firstFlow(s);
    const st = await openStream(s.baseUrl, `/flows/${id}/stream`, s.tokens.pro, { input: 'x' });
    await vi.waitFor(() => expect(st.events()).toHaveLength(1));
    const sizes: number[] = [];
    for (let i = 0; i < 4; i++) {
      clock.advance(ms(i === 0 ? 100 : 20));
      await vi.waitFor(() => expect(st.events().length).toBeGreaterThan(1 + i));
      sizes.push(st.raw().length);
    }
    expect(new Set(sizes).size).toBe(4);
  });

  it('appends user and assistant messages to the session of the run', async () => {
    const s = await start({ latency: 'none' });
    const id = await firstFlow(s);
    const session = (await call(s.baseUrl, 'POST', '/sessions', { token: s.tokens.pro, body: { flow_id: id, user_id: 'u1' } })).json;
    const st = await openStream(s.baseUrl, `/flows/${id}/stream`, s.tokens.pro, { input: 'hello', session_id: session.id });
    await st.done;
    const h = await call(s.baseUrl, 'GET', `/sessions/${session.id}/history`, { token: s.tokens.pro });
    const text = st.events().filter((e) => e.type === 'token').map((e) => e.content).join('');
    expect(h.json.messages.map((m: { role: string; content: string }) => [m.role, m.content])).toEqual([
      ['user', 'hello'],
      ['assistant', text],
    ]);
  });

  it('sends an error event and no end for a failed run', async () => {
    const s = await start({ latency: 'none', failureRate: 1 });
    const id = await firstFlow(s);
    const st = await openStream(s.baseUrl, `/flows/${id}/stream`, s.tokens.pro, { input: 'x' });
    await st.done;
    const ev = st.events();
    expect(ev.some((e) => e.type === 'end')).toBe(false);
    expect(ev.at(-1)).toMatchObject({ type: 'error', run_id: ev[0].run_id, error: { code: expect.any(String) } });
  });

  it('answers the same errors as run before the stream starts', async () => {
    const s = await start({ latency: 'none' });
    const id = await firstFlow(s);
    const r = await call(s.baseUrl, 'POST', `/flows/${id}/stream`, { token: s.tokens.pro, body: {} });
    expect(r.status).toBe(400);
    expect(r.json.error.details.field).toBe('input');
  });

  it('switches to CRLF, comment lines and an unknown event type when asked', async () => {
    const s = await start({ latency: 'none', quirks: { sseCrlf: true, sseComments: true, sseUnknownEvents: true } });
    const id = await firstFlow(s);
    const st = await openStream(s.baseUrl, `/flows/${id}/stream`, s.tokens.pro, { input: 'x' });
    await st.done;
    expect(st.raw()).toContain('\r\n\r\n');
    expect(st.raw()).not.toMatch(/[^\r]\n/);
    expect(st.raw()).toMatch(/^: /m);
    expect(st.events()[1].type).toBe('metadata');
  });
});
