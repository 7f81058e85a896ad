/**
 * Usage analytics (defaults, bad parameters) and the inbound trigger (its answer, whether it
 * wants the token, whether it reveals the run id).
 */
import { triggerAckSchema, usageStatsSchema } from '../api/index.js';
import { isRecord, outcomeOf, type ProbeContext } from './context.js';

/** Usage with defaults, with `granularity=hour`, and with bad parameters. */
export async function probeUsage(ctx: ProbeContext): Promise<void> {
  const a = await ctx.send({ label: 'GET /analytics/usage', op: 'getUsage', method: 'GET', path: '/analytics/usage' });
  if (a?.status === 200 && isRecord(a.json)) {
    ctx.rec.schema('schema.getUsage', usageStatsSchema, a.json, a);
    const p = isRecord(a.json.period) ? a.json.period : {};
    const start = Date.parse(String(p.start));
    const end = Date.parse(String(p.end));
    const days = Number.isFinite(start) && Number.isFinite(end) ? Math.round(((end - start) / 86_400_000) * 100) / 100 : undefined;
    const rows = Array.isArray(a.json.daily_breakdown) ? a.json.daily_breakdown.length : undefined;
    ctx.rec.observe({
      id: 'usage.defaults',
      topic: 'usage',
      question: 'What period and breakdown does usage use when no parameter is given?',
      answer: `period ${String(p.start)} to ${String(p.end)}${days === undefined ? '' : ` (${days} days)`}, ${rows ?? '?'} breakdown rows`,
      value: { start: p.start ?? null, end: p.end ?? null, rows: rows ?? null },
    });
  } else {
    ctx.rec.observe({ id: 'usage.defaults', topic: 'usage', question: 'What period does usage use when no parameter is given?', answer: outcomeOf(a), status: 'not-observed' });
  }
  const hour = await ctx.send({ label: 'GET /analytics/usage?granularity=hour', op: 'getUsage', method: 'GET', path: '/analytics/usage', query: { granularity: 'hour', start_date: new Date(ctx.clock.wallMs() - 3 * 3_600_000).toISOString() } });
  const row = isRecord(hour?.json) && Array.isArray(hour.json.daily_breakdown) ? hour.json.daily_breakdown[0] : undefined;
  ctx.rec.observe({
    id: 'usage.hourBreakdown',
    topic: 'usage',
    question: 'What shape does the breakdown take for a granularity other than day?',
    answer: hour?.status === 200 ? (isRecord(row) ? `rows like ${JSON.stringify(row).slice(0, 120)}` : 'no rows') : outcomeOf(hour),
  });

  const bad: Record<string, string> = {};
  const cases: [string, Record<string, string>][] = [
    ['granularity=fortnight', { granularity: 'fortnight' }],
    ['start_date=yesterday', { start_date: 'yesterday' }],
    ['start after end', { start_date: '2030-01-02', end_date: '2030-01-01' }],
    ['flow_id unknown', { flow_id: 'flow_flowgauge_conformance_unknown' }],
  ];
  for (const [name, query] of cases) {
    const r = await ctx.send({ label: `GET /analytics/usage (${name})`, op: 'getUsage', method: 'GET', path: '/analytics/usage', query });
    bad[name] = outcomeOf(r);
  }
  ctx.rec.observe({
    id: 'errors.usageParameters',
    topic: 'errors',
    question: 'Which code does usage answer to a bad granularity, bad dates, a start after the end, an unknown flow?',
    answer: Object.entries(bad).map(([k, v]) => `${k}: ${v}`).join('; '),
    value: bad,
  });
}

/** The trigger: with no token, then (if refused) with it; and with a body that is not an object. */
export async function probeTrigger(ctx: ProbeContext): Promise<void> {
  const flowId = ctx.state.flowId;
  if (flowId === undefined) return;
  const path = `/api/v1/webhook/${encodeURIComponent(flowId)}`;
  let a = await ctx.send({ label: 'POST /api/v1/webhook/{id}', op: 'trigger', method: 'POST', path, host: 'webhook', body: { message: 'flowgauge conformance' }, auth: 'none' });
  let auth = 'no token needed';
  if (a !== undefined && (a.status === 401 || a.status === 403)) {
    auth = `refused without a token (${outcomeOf(a)})`;
    a = await ctx.send({ label: 'POST /api/v1/webhook/{id} (token)', op: 'trigger', method: 'POST', path, host: 'webhook', body: { message: 'flowgauge conformance' }, auth: 'token' });
    auth += a?.status === 200 ? '; accepted with the bearer token' : `; with the token: ${outcomeOf(a)}`;
  }
  ctx.rec.observe({ id: 'trigger.auth', topic: 'trigger', question: 'Does the trigger address need authentication?', answer: a === undefined || a.status === 0 ? outcomeOf(a) : auth });
  if (a !== undefined && a.status >= 200 && a.status < 300) {
    if (isRecord(a.json)) ctx.rec.schema('schema.trigger', triggerAckSchema, a.json, a);
    else ctx.rec.violate({ rule: 'schema.trigger', path: '(root)', expected: 'JSON object { message, status }', got: a.text === '' ? 'empty' : 'not a JSON object', request: a.request.label });
    const runHeader = Object.keys(a.headers).find((h) => /run[-_]?id/.test(h));
    const bodyId = isRecord(a.json) ? ['run_id', 'runId', 'id'].find((k) => typeof (a?.json as Record<string, unknown>)[k] === 'string') : undefined;
    ctx.rec.observe({
      id: 'trigger.ack',
      topic: 'trigger',
      question: 'What does the trigger answer, and does it say which run it started?',
      answer:
        `HTTP ${a.status}, status ${JSON.stringify(isRecord(a.json) ? a.json.status : undefined)}; run id ` +
        (runHeader !== undefined ? `in header ${runHeader}` : bodyId !== undefined ? `in body field ${bodyId}` : 'not given (match by flow and time)'),
      value: { status: a.status, ackStatus: isRecord(a.json) ? (a.json.status ?? null) : null, runIdHeader: runHeader ?? null, runIdField: bodyId ?? null },
    });
    const id = runHeader !== undefined ? a.headers[runHeader] : undefined;
    if (id !== undefined) ctx.state.runIds.push(id);
  }
  const arr = await ctx.send({ label: 'POST /api/v1/webhook/{id} (array body)', op: 'trigger', method: 'POST', path, host: 'webhook', body: '[1,2]', auth: 'none' });
  ctx.rec.observe({ id: 'errors.triggerBody', topic: 'errors', question: 'What does the trigger answer to a body that is not a JSON object (its errors are not stated)?', answer: outcomeOf(arr) });
}
