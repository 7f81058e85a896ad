/**
 * Shapes of the interface's resources (docs/reference-service.md) and of the request bodies the client sends.
 * Optional fields are those the spec lets be absent in some legal answer (for example a run
 * that is still `running` has no `completed_at`); the schemas report every other gap as a
 * contract violation while the value is still handed over.
 */
import type { RunStatus } from '../core/types.js';

/** Token counts of a run (a run's `usage`). */
export interface Usage {
  readonly total_tokens: number;
  readonly prompt_tokens: number;
  readonly completion_tokens: number;
}

/** JSON-schema-style description of a flow's input or output. */
export interface FlowIoSchema {
  readonly type: string;
  readonly properties?: Readonly<Record<string, { readonly type: unknown; readonly [k: string]: unknown }>>;
  readonly [k: string]: unknown;
}

/** Fields every flow representation carries. */
export interface FlowBase {
  readonly id: string;
  readonly name: string;
  readonly description: string;
  readonly status: 'published' | 'draft';
  readonly created_at: string;
  readonly updated_at: string;
  readonly [k: string]: unknown;
}

/** A flow as listed by `GET /flows`: carries its run address. */
export interface FlowListItem extends FlowBase {
  readonly endpoint: string;
}

/** A flow as read by `GET /flows/{id}`: carries its schemas. */
export interface Flow extends FlowBase {
  readonly config: {
    readonly input_schema: FlowIoSchema;
    readonly output_schema: FlowIoSchema;
    readonly [k: string]: unknown;
  };
}

/** One page of `GET /flows`. */
export interface FlowList {
  readonly flows: readonly FlowListItem[];
  readonly total: number;
  readonly limit: number;
  readonly offset: number;
  readonly [k: string]: unknown;
}

/** Response of `POST /flows/{id}/run`. `running` is legal (asynchronous runs). */
export interface Run {
  readonly id: string;
  readonly flow_id: string;
  readonly status: RunStatus;
  readonly output: string;
  readonly created_at: string;
  /** Present once the run has finished. */
  readonly completed_at?: string | null;
  /** Present once the run has finished. */
  readonly usage?: Usage;
  readonly error?: unknown;
  readonly [k: string]: unknown;
}

/** Response of `GET /runs/{id}`. */
export interface RunStatusBody {
  readonly id: string;
  readonly flow_id: string;
  readonly status: RunStatus;
  /** Integer; its range is not stated by the interface. */
  readonly progress: number;
  /** Partial while running. */
  readonly output: string;
  /** `null` when the run has no error; its type otherwise is not stated. */
  readonly error: unknown;
  readonly created_at: string;
  readonly [k: string]: unknown;
}

/** A conversation session. */
export interface Session {
  readonly id: string;
  /** `null` is tolerated when the session was created without one (not stated by the spec). */
  readonly flow_id: string | null;
  readonly user_id: string | null;
  /** `active` on creation; other values are not stated. */
  readonly status: string;
  readonly created_at: string;
  readonly metadata: Readonly<Record<string, unknown>>;
  readonly [k: string]: unknown;
}

/** One message of a session's history. */
export interface Message {
  readonly id: string;
  readonly role: 'user' | 'assistant';
  readonly content: string;
  readonly timestamp: string;
  readonly [k: string]: unknown;
}

/** Response of `GET /sessions/{id}/history`, oldest message first. */
export interface History {
  readonly session_id: string;
  readonly messages: readonly Message[];
  readonly total: number;
  readonly [k: string]: unknown;
}

/** One row of the usage breakdown. */
export interface UsageBreakdownRow {
  readonly date: string;
  readonly runs: number;
  readonly tokens: number;
  readonly cost: number;
  readonly [k: string]: unknown;
}

/** Response of `GET /analytics/usage`. */
export interface UsageStats {
  readonly period: { readonly start: string; readonly end: string; readonly [k: string]: unknown };
  readonly metrics: {
    readonly total_runs: number;
    readonly successful_runs: number;
    readonly failed_runs: number;
    readonly total_tokens: number;
    readonly avg_response_time: number;
    readonly cost: number;
    readonly [k: string]: unknown;
  };
  readonly daily_breakdown: readonly UsageBreakdownRow[];
  readonly [k: string]: unknown;
}

/** Response of the inbound trigger address: the flow started in the background. */
export interface TriggerAck {
  readonly message: string;
  readonly status: string;
  readonly [k: string]: unknown;
}

/** Body of `POST /flows/{id}/run`. */
export interface RunBody {
  input: string;
  session_id?: string;
  stream?: boolean;
  variables?: Record<string, unknown>;
}

/** Body of `POST /flows/{id}/stream`. */
export interface StreamBody {
  input: string;
  session_id?: string;
}

/** Body of `POST /sessions`; which fields are required is not stated. */
export interface CreateSessionBody {
  flow_id?: string;
  user_id?: string;
  metadata?: Record<string, unknown>;
}

/** Query of `GET /flows`. */
export interface ListFlowsQuery {
  limit?: number;
  offset?: number;
  status?: 'published' | 'draft';
}

/** Query of `listAllFlows`: the page size (default 100, the interface's maximum). */
export interface ListAllFlowsQuery {
  pageSize?: number;
  status?: 'published' | 'draft';
}

/** Query of `GET /analytics/usage`. */
export interface UsageQuery {
  start_date?: string;
  end_date?: string;
  flow_id?: string;
  granularity?: 'hour' | 'day' | 'week' | 'month';
}
