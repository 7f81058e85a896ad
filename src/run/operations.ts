/**
 * One request of a scenario's mix: which client method, with which ids and body. The ids
 * a mix entry leaves out come from the run's preparation (first published flow, a session)
 * or from what the run itself created (recent run ids).
 */
import type { ApiResult, CallOptions, Client, ResponseMeta, StreamResult } from '../api/index.js';
import type { ResolvedMixEntry } from '../scenario/index.js';
import type { RecentIds } from './recent-ids.js';

/** Ids the run resolved before it started. */
export interface OperationTargets {
  readonly defaultFlowId: string;
  readonly sessionId: string | undefined;
  readonly runIds: RecentIds;
  /**
   * The answers to the requests the preparation sent with the scenario's token: the service
   * counted them in its rate-limit window, so the analyser places them there too.
   */
  readonly setup?: readonly ResponseMeta[];
}

/** The flow a mix entry addresses (a bounded metric label), if any. */
export function flowOf(entry: ResolvedMixEntry, targets: OperationTargets): string | undefined {
  switch (entry.op) {
    case 'run':
    case 'stream':
    case 'getFlow':
    case 'createSession':
    case 'trigger':
      return entry.flowId ?? targets.defaultFlowId;
    default:
      return entry.flowId;
  }
}

const DEFAULT_INPUT = 'Summarise the benefits of load testing in one sentence.';

function inputText(entry: ResolvedMixEntry): string {
  return typeof entry.input === 'string' ? entry.input : entry.input === undefined ? DEFAULT_INPUT : JSON.stringify(entry.input);
}

function stringQuery(q: Readonly<Record<string, unknown>> | undefined): Record<string, string> | undefined {
  if (q === undefined) return undefined;
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(q)) if (v !== undefined) out[k] = String(v);
  return out;
}

/** The ids in a request's address that are picked per request (a run to read, a session's history). */
export interface AddressIds {
  readonly runId?: string | undefined;
  readonly sessionId?: string | undefined;
}

/** Picks the ids `entry`'s address needs; call it once per request (it takes the next recent run id). */
export function addressIdsOf(entry: ResolvedMixEntry, targets: OperationTargets): AddressIds {
  if (entry.op === 'getRun') return { runId: targets.runIds.next() ?? 'run_unknown' };
  if (entry.op === 'getHistory') return { sessionId: entry.sessionId ?? targets.sessionId ?? 'session_unknown' };
  return {};
}

/** Sends the request a mix entry describes. Never rejects: failures are in the result. */
export function callOperation(
  client: Client,
  entry: ResolvedMixEntry,
  targets: OperationTargets,
  opts: CallOptions,
  ids: AddressIds = addressIdsOf(entry, targets),
): Promise<ApiResult<unknown> | StreamResult> {
  const flowId = entry.flowId ?? targets.defaultFlowId;
  switch (entry.op) {
    case 'run':
      return client.run(flowId, { input: inputText(entry), ...(entry.sessionId ? { session_id: entry.sessionId } : {}) }, opts);
    case 'stream':
      return client.stream(flowId, { input: inputText(entry), ...(entry.sessionId ? { session_id: entry.sessionId } : {}) }, opts);
    case 'getRun':
      // Before the run has created one, a request for a run id nobody made is still a fair
      // probe of the endpoint; preparation seeds one so this is rare.
      return client.getRun(ids.runId ?? 'run_unknown', opts);
    case 'listFlows':
      return client.listFlows(stringQuery(entry.query) as Parameters<Client['listFlows']>[0], opts);
    case 'getFlow':
      return client.getFlow(flowId, opts);
    case 'createSession':
      return client.createSession({ flow_id: flowId, user_id: 'flowgauge', metadata: { source: 'flowgauge' } }, opts);
    case 'getHistory':
      return client.getHistory(ids.sessionId ?? 'session_unknown', opts);
    case 'getUsage':
      return client.getUsage(stringQuery(entry.query) as Parameters<Client['getUsage']>[0], opts);
    case 'trigger':
      return client.trigger(
        flowId,
        typeof entry.input === 'object' && entry.input !== null ? (entry.input as Record<string, unknown>) : { message: inputText(entry) },
        opts,
      );
  }
}
