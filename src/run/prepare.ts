/**
 * Before the clock starts: find what the scenario's mix needs from the target (the first
 * published flow, a session, a run id) and prove the target answers at all. These few
 * requests are not part of the measurement.
 */
import { ApiError, type Client, type ResponseMeta } from '../api/index.js';
import { FlowgaugeError } from '../core/errors.js';
import type { ResolvedScenario } from '../scenario/index.js';
import type { OperationTargets } from './operations.js';
import { createRecentIds } from './recent-ids.js';

/** Longest the requests before the run may take, together. */
export const PREPARE_DEADLINE_MS = 30_000;

/**
 * Resolves the ids a scenario's mix leaves to the target; throws when the target cannot serve,
 * or when `signal` (Ctrl-C) aborts it before the run began.
 */
export async function prepareTargets(client: Client, scenario: ResolvedScenario, signal?: AbortSignal, deadlineMs = PREPARE_DEADLINE_MS): Promise<OperationTargets> {
  // One deadline for all of the preparation: a target that trickles its answers cannot hold the run.
  const deadline = AbortSignal.timeout(deadlineMs);
  const opts = { signal: signal === undefined ? deadline : AbortSignal.any([signal, deadline]) };
  // A function, not a property read, so the check after each await is not narrowed away.
  const aborted = (): boolean => signal?.aborted === true;
  const late = (what: string): FlowgaugeError =>
    new FlowgaugeError('FG_TARGET_UNREACHABLE', `target ${client.baseUrl} did not answer ${what} within the preparation deadline (${deadlineMs / 1000} s)`);
  const listed = await client.listFlows({ status: 'published', limit: 1 }, opts);
  const setup: ResponseMeta[] = [listed.meta];
  if (aborted()) throw interruptedBeforeStart();
  if (deadline.aborted) throw late('GET /flows');
  if (!listed.ok) {
    const e = listed.error;
    if (e.code === 'PROTOCOL_ERROR') {
      throw new FlowgaugeError('FG_TARGET_PROTOCOL', `target ${client.baseUrl} answered, but not with HTTP/1.1: ${e.message}`);
    }
    if (listed.meta.status === 0) {
      throw new FlowgaugeError('FG_TARGET_UNREACHABLE', `target ${client.baseUrl} could not be reached: ${e.code} (${e.message})`);
    }
    if (listed.meta.status === 401 || listed.meta.status === 403) {
      throw new FlowgaugeError(
        'FG_CONFIG_INVALID',
        `target ${client.baseUrl} refused the token: ${listed.meta.status} ${e.code}; pass a valid --token (or FLOWGAUGE_TOKEN)`,
      );
    }
    // An answer without the interface's error object came from something else: usually a gateway or proxy whose service is down.
    const foreign = e instanceof ApiError ? e.foreignBody : undefined;
    // ...but a 404 page of its own means no such path there: the address is wrong, not the service down.
    if (foreign !== undefined && listed.meta.status === 404) {
      const body = foreign === 'non-JSON text' ? 'a page that is not the interface\'s (HTML?)' : foreign === 'empty' ? 'an empty body' : `a JSON body without the interface's error object (${foreign})`;
      throw new FlowgaugeError(
        'FG_TARGET_PROTOCOL',
        `target ${client.baseUrl} answered GET /flows with HTTP 404 and ${body}: this is not the interface; check the path of --base-url (the interface's paths live under /v1)`,
      );
    }
    if (foreign !== undefined) {
      const body = foreign === 'non-JSON text' ? 'a non-JSON body (an HTML page?)' : foreign === 'empty' ? 'an empty body' : `a JSON body without the interface's error object (${foreign})`;
      throw new FlowgaugeError(
        'FG_TARGET_UNREACHABLE',
        `target ${client.baseUrl} answered GET /flows with HTTP ${listed.meta.status} and ${body}: a gateway or proxy in front of the service answered, not the service; is the service behind it up?`,
      );
    }
    // A 2xx whose body the client could not use (not JSON, not an object, past the size cap): the target answered in another shape.
    if (listed.meta.status >= 200 && listed.meta.status < 300) {
      throw new FlowgaugeError('FG_TARGET_PROTOCOL', `target ${client.baseUrl} answered GET /flows with HTTP ${listed.meta.status} and a body of another shape (${e.code}: ${e.message}); is this a Workflow Execution Service, and is /v1 in --base-url?`);
    }
    throw new FlowgaugeError('FG_TARGET_UNREACHABLE', `target ${client.baseUrl} failed to list flows: ${listed.meta.status} ${e.code}`);
  }
  // An answer of another shape is the target's fault, said plainly; never a TypeError here.
  const flows: unknown = (listed.value as { flows?: unknown } | null)?.flows;
  if (!Array.isArray(flows)) {
    throw new FlowgaugeError('FG_TARGET_PROTOCOL', `target ${client.baseUrl} answered GET /flows with a body of another shape: "flows" is ${describe(flows)}, not an array (got ${shapeOf(listed.value)}); is this a Workflow Execution Service, and is /v1 in --base-url?`);
  }
  const needsDefault = scenario.mix.some((m) => m.flowId === undefined && ['run', 'stream', 'getFlow', 'createSession', 'trigger', 'getHistory', 'getRun'].includes(m.op));
  const firstId: unknown = (flows[0] as { id?: unknown } | undefined)?.id;
  if (flows.length > 0 && typeof firstId !== 'string') {
    throw new FlowgaugeError('FG_TARGET_PROTOCOL', `target ${client.baseUrl} answered GET /flows with flows[0].id ${describe(firstId)}, not a string id`);
  }
  if (needsDefault && firstId === undefined) {
    throw new FlowgaugeError('FG_CONFIG_INVALID', `target ${client.baseUrl} lists no published flow; give each mix entry a flowId`);
  }
  const defaultFlowId = typeof firstId === 'string' ? firstId : '';
  const runIds = createRecentIds();

  let sessionId: string | undefined;
  if (scenario.mix.some((m) => m.op === 'getHistory' && m.sessionId === undefined)) {
    const s = await client.createSession({ flow_id: defaultFlowId, user_id: 'flowgauge', metadata: { source: 'flowgauge' } }, opts);
    setup.push(s.meta);
    const id: unknown = s.ok ? (s.value as { id?: unknown } | null)?.id : undefined;
    if (typeof id === 'string') sessionId = id;
  }
  if (scenario.mix.some((m) => m.op === 'getRun')) {
    const r = await client.run(defaultFlowId, { input: 'flowgauge warm-up', ...(sessionId ? { session_id: sessionId } : {}) }, opts);
    setup.push(r.meta);
    const id: unknown = r.ok ? (r.value as { id?: unknown } | null)?.id : undefined;
    if (typeof id === 'string') runIds.add(id);
  }
  if (aborted()) throw interruptedBeforeStart();
  if (deadline.aborted) throw late('the session and run it needed');
  return { defaultFlowId, sessionId, runIds, setup };
}

/** A value for a message: its kind, and a short form of it. */
function describe(v: unknown): string {
  if (v === undefined) return 'missing';
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'object') return 'an object';
  return `${typeof v} ${JSON.stringify(v).slice(0, 40)}`;
}

/** The top-level keys of a body, for a message. */
function shapeOf(v: unknown): string {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return describe(v);
  const keys = Object.keys(v).slice(0, 8);
  return keys.length === 0 ? 'an empty object' : `keys ${keys.map((k) => JSON.stringify(k.slice(0, 30))).join(', ')}`;
}

function interruptedBeforeStart(): FlowgaugeError {
  return new FlowgaugeError('FG_INTERRUPTED', 'interrupted before the first request: nothing was measured, no report written');
}
