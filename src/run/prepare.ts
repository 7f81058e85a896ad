/**
 * Before the clock starts: find what the scenario's mix needs from the target (the first
 * published flow, a session, a run id) and prove the target answers at all. These few
 * requests are not part of the measurement.
 */
import type { Client } from '../api/index.js';
import { FlowgaugeError } from '../core/errors.js';
import type { ResolvedScenario } from '../scenario/index.js';
import type { OperationTargets } from './operations.js';
import { createRecentIds } from './recent-ids.js';

/**
 * Resolves the ids a scenario's mix leaves to the target; throws when the target cannot serve,
 * or when `signal` (Ctrl-C) aborts it before the run began.
 */
export async function prepareTargets(client: Client, scenario: ResolvedScenario, signal?: AbortSignal): Promise<OperationTargets> {
  const opts = signal === undefined ? {} : { signal };
  // A function, not a property read, so the check after each await is not narrowed away.
  const aborted = (): boolean => signal?.aborted === true;
  const listed = await client.listFlows({ status: 'published', limit: 1 }, opts);
  if (aborted()) throw interruptedBeforeStart();
  if (!listed.ok) {
    const e = listed.error;
    if (listed.meta.status === 0) {
      throw new FlowgaugeError('FG_TARGET_UNREACHABLE', `target ${client.baseUrl} could not be reached: ${e.code} (${e.message})`);
    }
    if (listed.meta.status === 401 || listed.meta.status === 403) {
      throw new FlowgaugeError(
        'FG_CONFIG_INVALID',
        `target ${client.baseUrl} refused the token: ${listed.meta.status} ${e.code}; pass a valid --token (or FLOWGAUGE_TOKEN)`,
      );
    }
    throw new FlowgaugeError('FG_TARGET_UNREACHABLE', `target ${client.baseUrl} failed to list flows: ${listed.meta.status} ${e.code}`);
  }
  const needsDefault = scenario.mix.some((m) => m.flowId === undefined && ['run', 'stream', 'getFlow', 'createSession', 'trigger', 'getHistory', 'getRun'].includes(m.op));
  const first = listed.value.flows[0];
  if (needsDefault && first === undefined) {
    throw new FlowgaugeError('FG_CONFIG_INVALID', `target ${client.baseUrl} lists no published flow; give each mix entry a flowId`);
  }
  const defaultFlowId = first?.id ?? '';
  const runIds = createRecentIds();

  let sessionId: string | undefined;
  if (scenario.mix.some((m) => m.op === 'getHistory' && m.sessionId === undefined)) {
    const s = await client.createSession({ flow_id: defaultFlowId, user_id: 'flowgauge', metadata: { source: 'flowgauge' } }, opts);
    if (s.ok) sessionId = s.value.id;
  }
  if (scenario.mix.some((m) => m.op === 'getRun')) {
    const r = await client.run(defaultFlowId, { input: 'flowgauge warm-up', ...(sessionId ? { session_id: sessionId } : {}) }, opts);
    if (r.ok) runIds.add(r.value.id);
  }
  if (aborted()) throw interruptedBeforeStart();
  return { defaultFlowId, sessionId, runIds };
}

function interruptedBeforeStart(): FlowgaugeError {
  return new FlowgaugeError('FG_INTERRUPTED', 'interrupted before the first request: nothing was measured, no report written');
}
