/**
 * Runs, streams and sessions: whether `run` streams by default or can answer `running`, the
 * progress range, the type of `error` on a failed run, what `stream: true` does, the stream's
 * framing, and session histories.
 */
import { endEventSchema, historySchema, runSchema, runStatusBodySchema, sessionSchema, startEventSchema } from '../api/index.js';
import { isRecord, mediaType, outcomeOf, sleep, type ProbeContext } from './context.js';
import type { ExchangeAnswer } from './exchange.js';

const INPUT = 'flowgauge conformance: say hello';
const POLL_MS = 200;
const MAX_POLLS = 25;

function describe(v: unknown): string {
  return v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v;
}

function noteRunBody(ctx: ProbeContext, a: ExchangeAnswer): string | undefined {
  if (!isRecord(a.json)) return undefined;
  ctx.rec.schema('schema.run', runSchema, a.json, a);
  const status = a.json.status;
  if (typeof a.json.id === 'string') ctx.state.runIds.push(a.json.id);
  if (status === 'completed') {
    if (a.json.completed_at === undefined || a.json.completed_at === null) {
      ctx.rec.violate({ rule: 'schema.run', path: 'completed_at', expected: 'timestamp in the run response', got: describe(a.json.completed_at), request: a.request.label });
    }
    if (a.json.usage === undefined) ctx.rec.violate({ rule: 'schema.run', path: 'usage', expected: 'object', got: 'missing', request: a.request.label });
  }
  if (status === 'failed') ctx.state.failedErrors.push(a.json.error);
  return typeof status === 'string' ? status : undefined;
}

/** Reads a run's status until it is no longer `running` (bounded); returns the progress values seen. */
async function follow(ctx: ProbeContext, runId: string, untilDone: boolean): Promise<{ final: string | undefined; progress: number[] }> {
  const progress: number[] = [];
  let final: string | undefined;
  for (let i = 0; i < (untilDone ? MAX_POLLS : 1); i++) {
    if (i > 0) await sleep(ctx.clock, POLL_MS);
    const a = await ctx.send({ label: 'GET /runs/{id}', op: 'getRun', method: 'GET', path: `/runs/${encodeURIComponent(runId)}` });
    if (a === undefined || a.status !== 200 || !isRecord(a.json)) break;
    if (i === 0) ctx.rec.schema('schema.getRun', runStatusBodySchema, a.json, a);
    if (typeof a.json.progress === 'number') progress.push(a.json.progress);
    final = typeof a.json.status === 'string' ? a.json.status : undefined;
    if (final === 'failed') ctx.state.failedErrors.push(a.json.error);
    if (final !== 'running') break;
  }
  ctx.state.progress.push(progress);
  return { final, progress };
}

/** `run` without `stream`: JSON or events, waiting or `running`; then its status reads. */
export async function probeRun(ctx: ProbeContext): Promise<void> {
  const flowId = ctx.state.flowId;
  if (flowId === undefined) {
    ctx.rec.observe({ id: 'run.streamsByDefault', topic: 'runs', question: 'Does run stream when `stream` is not sent?', answer: 'not observed: the token lists no published flow', status: 'not-observed' });
    return;
  }
  const path = `/flows/${encodeURIComponent(flowId)}/run`;
  const a = await ctx.send({ label: 'POST /flows/{id}/run', op: 'run', method: 'POST', path, body: { input: INPUT } });
  if (a === undefined || a.status !== 200) {
    ctx.rec.observe({ id: 'run.streamsByDefault', topic: 'runs', question: 'Does run stream when `stream` is not sent?', answer: `not observed: run answered ${outcomeOf(a)}`, status: 'not-observed' });
    return;
  }
  const streams = a.sse !== undefined;
  ctx.rec.observe({
    id: 'run.streamsByDefault',
    topic: 'runs',
    question: 'Does run stream when `stream` is not sent (the default of `stream`)?',
    answer: streams ? `yes: Content-Type ${a.contentType ?? '(none)'}` : `no: Content-Type ${a.contentType ?? '(none)'}`,
    value: { streams, contentType: a.contentType ?? null },
  });
  if (streams) return;
  const status = noteRunBody(ctx, a);
  ctx.rec.observe({
    id: 'run.answersRunning',
    topic: 'runs',
    question: 'Does run wait for completion, or may it answer `running`?',
    answer: status === 'running' ? 'it answered `running`: runs are asynchronous, followed with GET /runs/{id}' : `it waited: status \`${status ?? '?'}\``,
    value: status ?? null,
  });
  const id = isRecord(a.json) && typeof a.json.id === 'string' ? a.json.id : undefined;
  if (id !== undefined) {
    const f = await follow(ctx, id, status === 'running');
    if (status === 'running' && f.final === 'running') {
      ctx.rec.observe({ id: 'run.completesAfterRunning', topic: 'runs', question: 'How long does a `running` run take to finish?', answer: `still running after ${MAX_POLLS} reads ${POLL_MS} ms apart`, status: 'not-observed' });
    }
  }
}

/** `stream: true` on run, and the stream operation with its framing. */
export async function probeStreams(ctx: ProbeContext): Promise<void> {
  const flowId = ctx.state.flowId;
  if (flowId === undefined) return;
  const enc = encodeURIComponent(flowId);
  const st = await ctx.send({ label: 'POST /flows/{id}/run (stream: true)', op: 'run', method: 'POST', path: `/flows/${enc}/run`, body: { input: INPUT, stream: true }, accept: 'application/json, text/event-stream' });
  if (st !== undefined && st.status === 200 && st.sse === undefined) noteRunBody(ctx, st);
  ctx.rec.observe({
    id: 'run.streamTrue',
    topic: 'runs',
    question: 'What does run do with `stream: true`?',
    answer: st === undefined || st.status !== 200 ? outcomeOf(st) : st.sse !== undefined ? `streams events (Content-Type ${st.contentType ?? '(none)'})` : `answers one JSON run (Content-Type ${st.contentType ?? '(none)'})`,
    value: st?.contentType ?? null,
  });

  const a = await ctx.send({ label: 'POST /flows/{id}/stream', op: 'stream', method: 'POST', path: `/flows/${enc}/stream`, body: { input: INPUT }, accept: 'text/event-stream' });
  if (a === undefined || a.status !== 200) return;
  if (mediaType(a.contentType) !== 'text/event-stream' || a.sse === undefined) {
    ctx.rec.violate({ rule: 'stream.contentType', path: 'content-type', expected: 'text/event-stream', got: a.contentType ?? '(none)', request: a.request.label });
    return;
  }
  const events = a.sse.events;
  const types = events.map((e) => e.type ?? '(none)');
  const start = events.find((e) => e.type === 'start');
  const end = events.find((e) => e.type === 'end');
  const fail = events.find((e) => e.type === 'error');
  if (start === undefined) ctx.rec.violate({ rule: 'stream.events', path: 'start', expected: 'a start event', got: 'none', request: a.request.label });
  else ctx.rec.schema('stream.events', startEventSchema, start.data, a);
  if (isRecord(start?.data) && typeof start.data.run_id === 'string') ctx.state.runIds.push(start.data.run_id);
  for (const e of events) {
    if (e.type === 'token' && !(isRecord(e.data) && typeof e.data.content === 'string')) {
      ctx.rec.violate({ rule: 'stream.events', path: 'token.content', expected: 'string', got: describe(isRecord(e.data) ? e.data.content : e.data), request: a.request.label });
    }
  }
  if (end !== undefined) ctx.rec.schema('stream.events', endEventSchema, end.data, a);
  else if (fail === undefined) ctx.rec.violate({ rule: 'stream.events', path: 'end', expected: 'an end event', got: `stream closed after ${types.join(', ')}`, request: a.request.label });
  if (fail !== undefined && isRecord(fail.data)) ctx.state.failedErrors.push(fail.data.error);
  const unknown = [...new Set(types.filter((t) => !['start', 'token', 'end'].includes(t)))];
  ctx.rec.observe({
    id: 'stream.framing',
    topic: 'stream',
    question: 'Which event types beyond start/token/end, comment lines or CRLF line endings does the stream use?',
    answer: `event types beyond the three: ${unknown.length === 0 ? 'none' : unknown.join(', ')}; ${a.sse.comments} comment lines; ${a.sse.crlf ? 'CRLF' : 'LF'} line endings`,
    value: { unknownTypes: unknown, comments: a.sse.comments, crlf: a.sse.crlf },
  });
}

/** A missing input (stated: INVALID_REQUEST with details.field `input`) and an unknown run. */
export async function probeRunErrors(ctx: ProbeContext): Promise<void> {
  const flowId = ctx.state.flowId;
  if (flowId !== undefined) {
    const a = await ctx.send({ label: 'POST /flows/{id}/run (no input)', op: 'run', method: 'POST', path: `/flows/${encodeURIComponent(flowId)}/run`, body: {} });
    if (a !== undefined && a.status !== 0) {
      const err = isRecord(a.json) && isRecord(a.json.error) ? a.json.error : undefined;
      const field = isRecord(err?.details) ? err.details.field : undefined;
      if (a.status !== 400 || err?.code !== 'INVALID_REQUEST' || field !== 'input') {
        ctx.rec.violate({ rule: 'errors.missingInput', path: 'error', expected: '400 INVALID_REQUEST with details.field "input"', got: outcomeOf(a), request: a.request.label });
      }
    }
  }
  const u = await ctx.send({ label: 'GET /runs/{unknown id}', op: 'getRun', method: 'GET', path: '/runs/run_flowgauge_conformance_unknown' });
  ctx.rec.observe({ id: 'errors.unknownRun', topic: 'errors', question: 'Which code does reading an unknown run get?', answer: outcomeOf(u), value: u?.status });
}

/** A session: created `active`, a run in it, its history in order. */
export async function probeSessions(ctx: ProbeContext): Promise<void> {
  const flowId = ctx.state.flowId;
  if (flowId === undefined) return;
  const s = await ctx.send({ label: 'POST /sessions', op: 'createSession', method: 'POST', path: '/sessions', body: { flow_id: flowId, user_id: 'flowgauge-conformance', metadata: { source: 'flowgauge' } } });
  if (s === undefined || s.status !== 200 || !isRecord(s.json)) {
    ctx.rec.observe({ id: 'sessions.create', topic: 'sessions', question: 'What does session creation answer?', answer: outcomeOf(s), status: 'not-observed' });
    return;
  }
  ctx.rec.schema('schema.createSession', sessionSchema, s.json, s);
  if (s.json.status !== 'active') {
    ctx.rec.violate({ rule: 'sessions.active', path: 'status', expected: '"active" on creation', got: JSON.stringify(s.json.status), request: s.request.label });
  }
  const empty = await ctx.send({ label: 'POST /sessions (empty body)', op: 'createSession', method: 'POST', path: '/sessions', body: {} });
  ctx.rec.observe({ id: 'sessions.requiredFields', topic: 'sessions', question: 'Which body fields of session creation are required?', answer: `an empty body gets ${outcomeOf(empty)}` });
  const sessionId = typeof s.json.id === 'string' ? s.json.id : undefined;
  if (sessionId === undefined) return;
  const r = await ctx.send({ label: 'POST /flows/{id}/run (session)', op: 'run', method: 'POST', path: `/flows/${encodeURIComponent(flowId)}/run`, body: { input: INPUT, session_id: sessionId } });
  if (r?.status === 200 && isRecord(r.json) && r.json.status === 'running' && typeof r.json.id === 'string') await follow(ctx, r.json.id, true);
  const h = await ctx.send({ label: 'GET /sessions/{id}/history', op: 'getHistory', method: 'GET', path: `/sessions/${encodeURIComponent(sessionId)}/history` });
  if (h === undefined || h.status !== 200 || !isRecord(h.json)) return;
  // Roles beyond user and assistant are not ruled out by the interface ("not shown").
  ctx.rec.schema('schema.getHistory', historySchema, h.json, h, (path) => /^messages\[\d+\]\.role$/.test(path));
  const messages = Array.isArray(h.json.messages) ? h.json.messages.filter(isRecord) : [];
  const stamps = messages.map((m) => Date.parse(String(m.timestamp)));
  if (stamps.some((t, i) => i > 0 && t < (stamps[i - 1] as number))) {
    ctx.rec.violate({ rule: 'sessions.historyOrder', path: 'messages[].timestamp', expected: 'oldest first', got: 'a message older than the one before it', request: h.request.label });
  }
  ctx.rec.observe({
    id: 'sessions.history',
    topic: 'sessions',
    question: 'What does one run in a fresh session leave in its history (pagination is not stated)?',
    answer: `${messages.length} messages (${messages.map((m) => String(m.role)).join(', ') || 'none'}); total ${JSON.stringify(h.json.total)}`,
    value: messages.map((m) => m.role),
  });
}

/** What the battery saw of progress values and failed runs' errors, gathered from every probe. */
export function observeRunFindings(ctx: ProbeContext): void {
  const all = ctx.state.progress.flat();
  const decreasing = ctx.state.progress.some((p) => p.some((v, i) => i > 0 && v < (p[i - 1] as number)));
  ctx.rec.observe({
    id: 'run.progressRange',
    topic: 'runs',
    question: 'What range does `progress` take, and does it only go up?',
    answer: all.length === 0 ? 'no status read returned a numeric progress' : `values from ${Math.min(...all)} to ${Math.max(...all)} in ${all.length} reads; ${decreasing ? 'it went down at least once' : 'never went down'}`,
    status: all.length === 0 ? 'not-observed' : 'observed',
    value: all.length === 0 ? null : { min: Math.min(...all), max: Math.max(...all), monotonic: !decreasing },
  });
  const errs = ctx.state.failedErrors;
  ctx.rec.observe({
    id: 'run.errorType',
    topic: 'runs',
    question: 'What is the type of `error` when a run fails?',
    answer: errs.length === 0 ? 'unobservable: no run failed during the battery, and a failure cannot be provoked on purpose' : `${[...new Set(errs.map(describe))].join(', ')} (e.g. ${JSON.stringify(errs[0])?.slice(0, 120)})`,
    status: errs.length === 0 ? 'unobservable' : 'observed',
    ...(errs.length > 0 ? { value: errs[0] } : {}),
  });
}
