/**
 * The first probes: can the target be reached with this token, what the auth errors look like,
 * how lists are bounded (default 20, maximum 100 are stated; what happens past the bounds is
 * not), and what reading an unknown or another account's flow answers.
 */
import { flowListSchema, flowSchema } from '../api/index.js';
import { isRecord, outcomeOf, type ProbeContext } from './context.js';
import type { ExchangeAnswer } from './exchange.js';

/** What the first request showed: `protocol` when the target answered, but not as the interface does. */
export interface Reachability {
  readonly reach: 'ok' | 'unreachable' | 'refused' | 'protocol';
  /** What it answered instead, for `protocol`. */
  readonly protocol?: string;
}

/** Lists flows with the defaults; decides whether the rest can run. */
export async function probeReachable(ctx: ProbeContext): Promise<Reachability> {
  const a = await ctx.send({ label: 'GET /flows', op: 'listFlows', method: 'GET', path: '/flows' });
  if (a !== undefined && a.status === 0 && a.transportError === 'PROTOCOL_ERROR') {
    return { reach: 'protocol', protocol: 'GET /flows was answered, but not with HTTP/1.1' };
  }
  if (a === undefined || a.status === 0) return { reach: 'unreachable' };
  if (a.status === 401 || a.status === 403) return { reach: 'refused' };
  if (a.status === 200 && a.transportError === undefined && !(isRecord(a.json) && Array.isArray(a.json.flows))) {
    const got = a.sse !== undefined ? 'an event stream' : a.text === '' ? 'an empty body' : isRecord(a.json) ? 'a JSON object without a "flows" array' : a.json === undefined ? 'a body that is not JSON' : `JSON ${Array.isArray(a.json) ? 'array' : typeof a.json}`;
    return { reach: 'protocol', protocol: `GET /flows answered 200 with ${got}, not a flow list; is this a Workflow Execution Service, and is /v1 in --base-url?` };
  }
  if (a.status !== 200 || !isRecord(a.json)) return { reach: 'ok' };
  ctx.rec.schema('schema.listFlows', flowListSchema, a.json, a);
  const flows = Array.isArray(a.json.flows) ? a.json.flows : [];
  const first = flows.find((f) => isRecord(f) && typeof f.id === 'string' && (f.status === undefined || f.status === 'published'));
  ctx.state.flowId = isRecord(first) ? (first.id as string) : undefined;
  if (a.json.limit !== 20) {
    ctx.rec.violate({ rule: 'lists.defaultLimit', path: 'limit', expected: '20 when no limit is given', got: JSON.stringify(a.json.limit), request: a.request.label });
  }
  if (flows.length > 20) {
    ctx.rec.violate({ rule: 'lists.defaultLimit', path: 'flows', expected: 'at most 20 flows by default', got: `${flows.length} flows`, request: a.request.label });
  }
  // "Lists the caller's published flows", yet `status=draft` is a filter: whether drafts appear by default is open.
  const drafts = flows.filter((f) => isRecord(f) && f.status === 'draft').length;
  ctx.rec.observe({
    id: 'lists.draftsByDefault',
    topic: 'lists',
    question: 'Does GET /flows without `status` list drafts too?',
    answer: drafts > 0 ? `yes: ${drafts} of ${flows.length} listed flows are drafts` : `no drafts among ${flows.length} listed flows`,
    value: drafts,
  });
  return { reach: 'ok' };
}

/** No token and a wrong token: 401 UNAUTHORIZED with the error body, as stated. */
export async function probeAuth(ctx: ProbeContext): Promise<void> {
  for (const [auth, what] of [
    ['none', 'without a token'],
    ['invalid', 'with an invalid token'],
  ] as const) {
    const a = await ctx.send({ label: `GET /flows (${what})`, op: 'listFlows', method: 'GET', path: '/flows', auth });
    if (a === undefined || a.status === 0) continue;
    const code = isRecord(a.json) && isRecord(a.json.error) ? a.json.error.code : undefined;
    if (a.status !== 401 || code !== 'UNAUTHORIZED') {
      ctx.rec.violate({ rule: 'auth.unauthorized', path: 'status', expected: `401 UNAUTHORIZED ${what}`, got: outcomeOf(a), request: a.request.label });
    }
  }
}

function pageFacts(a: ExchangeAnswer | undefined): { n: number | undefined; limit: unknown } {
  if (a === undefined || a.status !== 200 || !isRecord(a.json)) return { n: undefined, limit: undefined };
  return { n: Array.isArray(a.json.flows) ? a.json.flows.length : undefined, limit: a.json.limit };
}

/** The list bounds: 100 works and holds at most 100; 0, 101, -1 and text get whatever they get. */
export async function probeLists(ctx: ProbeContext): Promise<void> {
  const list = (limit: string): Promise<ExchangeAnswer | undefined> =>
    ctx.send({ label: `GET /flows?limit=${limit}`, op: 'listFlows', method: 'GET', path: '/flows', query: { limit } });
  const max = await list('100');
  const m = pageFacts(max);
  if (max !== undefined && max.status !== 200) {
    ctx.rec.violate({ rule: 'lists.maxLimit', path: 'status', expected: 'limit=100 accepted (the stated maximum)', got: outcomeOf(max), request: max.request.label });
  } else if (m.n !== undefined && m.n > 100) {
    ctx.rec.violate({ rule: 'lists.maxLimit', path: 'flows', expected: 'at most 100 flows', got: `${m.n} flows`, request: 'GET /flows?limit=100' });
  }
  const answers: Record<string, string> = {};
  for (const limit of ['0', '101', '-1', 'ten']) {
    const a = await list(limit);
    const f = pageFacts(a);
    answers[limit] = a?.status === 200 ? `HTTP 200, ${f.n ?? '?'} flows, limit ${JSON.stringify(f.limit)}` : outcomeOf(a);
    if (limit === '101' && f.n !== undefined && f.n > 100) {
      ctx.rec.violate({ rule: 'lists.maxLimit', path: 'flows', expected: 'at most 100 flows (maximum 100)', got: `${f.n} flows`, request: 'GET /flows?limit=101' });
    }
  }
  ctx.rec.observe({
    id: 'lists.outOfBounds',
    topic: 'lists',
    question: 'What does GET /flows answer for limit=0, limit=101 (over the maximum), limit=-1 and a non-number?',
    answer: Object.entries(answers).map(([k, v]) => `limit=${k}: ${v}`).join('; '),
    value: answers,
  });
}

/** One flow, an unknown flow, another account's flow (with a second token). */
export async function probeFlows(ctx: ProbeContext): Promise<void> {
  const flowId = ctx.state.flowId;
  if (flowId !== undefined) {
    const a = await ctx.send({ label: 'GET /flows/{id}', op: 'getFlow', method: 'GET', path: `/flows/${encodeURIComponent(flowId)}` });
    if (a?.status === 200) ctx.rec.schema('schema.getFlow', flowSchema, a.json, a);
  }
  const unknown = await ctx.send({ label: 'GET /flows/{unknown id}', op: 'getFlow', method: 'GET', path: '/flows/flow_flowgauge_conformance_unknown' });
  ctx.rec.observe({ id: 'errors.unknownFlow', topic: 'errors', question: 'Which code does reading an unknown flow get?', answer: outcomeOf(unknown), value: unknown?.status });
  if (unknown !== undefined && unknown.status >= 200 && unknown.status < 300) {
    ctx.rec.violate({ rule: 'errors.notFound', path: 'status', expected: 'an error for a flow that does not exist', got: `HTTP ${unknown.status}`, request: unknown.request.label });
  }

  if (!ctx.x.hasOtherToken) {
    ctx.rec.observe({ id: 'auth.otherAccount', topic: 'auth', question: "Which code does reading another account's flow get?", answer: 'not observed: no second token was given (--other-token)', status: 'not-observed' });
    return;
  }
  const theirs = await ctx.send({ label: 'GET /flows (other token)', op: 'listFlows', method: 'GET', path: '/flows', query: { limit: '1' }, auth: 'other' });
  const their = isRecord(theirs?.json) && Array.isArray(theirs.json.flows) ? theirs.json.flows[0] : undefined;
  const theirId = isRecord(their) && typeof their.id === 'string' ? their.id : undefined;
  if (theirId === undefined || theirId === flowId) {
    ctx.rec.observe({ id: 'auth.otherAccount', topic: 'auth', question: "Which code does reading another account's flow get?", answer: 'not observed: the second token lists no flow of its own', status: 'not-observed' });
    return;
  }
  const a = await ctx.send({ label: "GET /flows/{another account's id}", op: 'getFlow', method: 'GET', path: `/flows/${encodeURIComponent(theirId)}` });
  ctx.rec.observe({ id: 'auth.otherAccount', topic: 'auth', question: "Which code does reading another account's flow get?", answer: outcomeOf(a), value: a?.status });
  if (a !== undefined && a.status >= 200 && a.status < 300) {
    ctx.rec.violate({ rule: 'auth.permissions', path: 'status', expected: "403 FORBIDDEN (or not found) for another account's flow", got: `HTTP ${a.status}`, request: a.request.label });
  }
}
