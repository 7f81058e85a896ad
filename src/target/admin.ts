/**
 * `GET/PUT/DELETE /admin/faults`: the fault switchboard, outside `/v1`, guarded by the admin
 * token. Never affected by faults itself, and never rate limited.
 */
import { timingSafeEqual } from 'node:crypto';
import { ConfigError } from '../core/errors.js';
import { readJsonBody, sendBody, sendBodyProblem, sendError, type RequestContext } from './http.js';
import type { ServiceState } from './state.js';

function authorised(state: ServiceState, header: string | undefined): boolean {
  if (header === undefined) return false;
  const m = /^bearer\s+(\S+)\s*$/i.exec(header);
  if (m === null) return false;
  const got = Buffer.from(m[1] as string);
  const want = Buffer.from(state.adminToken);
  return got.length === want.length && timingSafeEqual(got, want);
}

/** Serves the admin endpoint. */
export async function handleAdmin(state: ServiceState, ctx: RequestContext): Promise<void> {
  if (!authorised(state, ctx.req.headers.authorization)) {
    return sendError(state, ctx, 'UNAUTHORIZED', 'admin token missing or invalid', { reason: 'Authorization: Bearer <adminToken> required' });
  }
  const method = ctx.req.method;
  if (method === 'GET') return sendBody(state, ctx, 200, JSON.stringify(state.faults.get()));
  if (method === 'DELETE') {
    state.faults.clear();
    return sendBody(state, ctx, 200, JSON.stringify(state.faults.get()));
  }
  if (method !== 'PUT') return sendError(state, ctx, 'NOT_FOUND', 'no route for this method', { reason: 'use GET, PUT or DELETE' });
  const body = await readJsonBody(ctx.req);
  if (!body.ok) return sendBodyProblem(state, ctx, body);
  try {
    return sendBody(state, ctx, 200, JSON.stringify(state.faults.set(body.value as never)));
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    const first = err.issues[0];
    return sendError(state, ctx, 'INVALID_REQUEST', err.message, {
      field: first?.path ?? '',
      reason: first?.message ?? 'invalid',
      issues: err.issues,
    });
  }
}
