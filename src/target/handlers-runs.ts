/** `POST /flows/{id}/run`, `POST /flows/{id}/stream`, `GET /runs/{id}` and the inbound trigger. */
import { renderTemplate } from './generator.js';
import { ownedFlow, refuseDraft } from './handlers-flows.js';
import { readJsonBody, sendBody, sendBodyProblem, sendError, sendInvalid, type RequestContext } from './http.js';
import type { RunRecord } from './runs.js';
import type { SessionRecord } from './sessions.js';
import type { ServiceState } from './state.js';
import { startStream } from './stream.js';
import { isRecord } from './validate.js';

/** Answers with the run body of the interface. */
function sendRun(state: ServiceState, ctx: RequestContext, run: RunRecord): void {
  sendBody(state, ctx, 200, JSON.stringify(state.runs.view(run)));
}

/** Resolves `session_id` of a run body; answers the error and returns null when it is unusable. */
function runSession(state: ServiceState, ctx: RequestContext, raw: unknown, flowId: string): SessionRecord | undefined | null {
  if (raw === undefined) return undefined;
  if (typeof raw !== 'string') {
    sendInvalid(state, ctx, 'session_id', 'must be a string');
    return null;
  }
  const session = state.sessions.get(raw);
  if (session === undefined) {
    sendError(state, ctx, 'NOT_FOUND', 'session not found', { field: 'session_id', reason: 'no session with this id' });
    return null;
  }
  if (session.account !== ctx.tok?.account) {
    sendError(state, ctx, 'FORBIDDEN', 'the token may not access this session', { field: 'session_id', reason: 'session belongs to another account' });
    return null;
  }
  if (session.flowId !== flowId) {
    sendInvalid(state, ctx, 'session_id', 'belongs to another flow');
    return null;
  }
  return session;
}

/** `POST /flows/{id}/run` and `/stream`. `stream: true` on `/run` answers a stream too. */
export async function runFlow(state: ServiceState, ctx: RequestContext, streamRoute: boolean): Promise<void> {
  const body = await readJsonBody(ctx.req);
  if (!body.ok) return sendBodyProblem(state, ctx, body);
  if (!isRecord(body.value)) return sendInvalid(state, ctx, 'body', 'must be a JSON object');
  const b = body.value;
  const flow = ownedFlow(state, ctx, ctx.param);
  if (flow === undefined || refuseDraft(state, ctx, flow)) return;
  if (b.input === undefined) return sendInvalid(state, ctx, 'input', 'is required');
  if (typeof b.input !== 'string') return sendInvalid(state, ctx, 'input', 'must be a string');
  if (b.stream !== undefined && typeof b.stream !== 'boolean') return sendInvalid(state, ctx, 'stream', 'must be a boolean');
  if (b.variables !== undefined && !isRecord(b.variables)) return sendInvalid(state, ctx, 'variables', 'must be an object');
  const session = runSession(state, ctx, b.session_id, flow.id);
  if (session === null) return;
  const input = b.input;
  if (session !== undefined) state.sessions.append(session, 'user', input, state.clock.wallMs());
  if (streamRoute || b.stream === true) {
    startStream(state, ctx, flow.id, flow.account, input, session?.id);
    return;
  }
  const run = state.runs.start(flow.id, flow.account, input, session?.id, 'run');
  if (state.opts.runMode === 'async' || run.status !== 'running') return sendRun(state, ctx, run);
  state.runs.whenFinished(run, (r) => sendRun(state, ctx, r));
}

/** `GET /runs/{id}`. */
export function getRun(state: ServiceState, ctx: RequestContext): void {
  const run = state.runs.get(ctx.param);
  if (run === undefined) return sendError(state, ctx, 'NOT_FOUND', 'run not found', { field: 'run_id', reason: 'no run with this id' });
  if (run.account !== ctx.tok?.account) {
    return sendError(state, ctx, 'FORBIDDEN', 'the token may not access this run', { field: 'run_id', reason: 'run belongs to another account' });
  }
  sendRun(state, ctx, run);
}

/** Header naming the run a trigger started (the interface's body has no place for it). */
export const TRIGGER_RUN_HEADER = 'x-flowgauge-run-id';

/**
 * `POST /api/v1/webhook/{flow_id}`: no token; any JSON object. Answers at once and runs the
 * flow in the background with the payload rendered by the flow's template (or stringified).
 */
export async function trigger(state: ServiceState, ctx: RequestContext): Promise<void> {
  const body = await readJsonBody(ctx.req);
  if (!body.ok) return sendBodyProblem(state, ctx, body);
  if (!isRecord(body.value)) return sendInvalid(state, ctx, 'body', 'must be a JSON object');
  const flow = state.catalogue.get(ctx.param);
  if (flow === undefined) return sendError(state, ctx, 'NOT_FOUND', 'flow not found', { field: 'flow_id', reason: 'no flow with this id' });
  if (refuseDraft(state, ctx, flow)) return;
  const run = state.runs.start(flow.id, flow.account, renderTemplate(flow.template, body.value), undefined, 'trigger');
  state.stats.triggers++;
  sendBody(state, ctx, 200, JSON.stringify({ message: 'Task started in the background', status: 'in progress' }), {
    headers: { [TRIGGER_RUN_HEADER]: run.id },
  });
}
