/**
 * The route table, hand-written: a few string comparisons per request instead of a regex or
 * a framework. Sets the area, route name and path parameter on the request context.
 */
import type { OpName } from '../core/ops.js';

/** Where a path lives: the API, the inbound trigger, the admin endpoint, or nowhere. */
export type Area = 'v1' | 'trigger' | 'admin' | 'other';

/** A matched route: an operation name, `admin`, or `unknown` (no route for path + method). */
export type RouteName = OpName | 'admin' | 'unknown';

/** Fields the matcher fills in. */
export interface Routable {
  area: Area;
  route: RouteName;
  param: string;
}

function decode(s: string): string | undefined {
  if (s === '' || s.includes('/')) return undefined;
  if (!s.includes('%')) return s;
  try {
    return decodeURIComponent(s);
  } catch {
    return undefined;
  }
}

/** Matches `method path` and writes the result into `ctx`. A known path with another method is `unknown`. */
export function matchRoute(ctx: Routable, method: string, path: string): void {
  ctx.route = 'unknown';
  if (path.startsWith('/v1/')) {
    ctx.area = 'v1';
    matchV1(ctx, method, path.slice(4));
  } else if (path.startsWith('/api/v1/webhook/')) {
    ctx.area = 'trigger';
    const id = decode(path.slice(16));
    if (id !== undefined && method === 'POST') {
      ctx.route = 'trigger';
      ctx.param = id;
    }
  } else if (path === '/admin/faults') {
    ctx.area = 'admin';
    ctx.route = 'admin';
  } else {
    ctx.area = path === '/v1' ? 'v1' : 'other';
  }
}

function matchV1(ctx: Routable, method: string, rest: string): void {
  const get = method === 'GET';
  const post = method === 'POST';
  if (rest === 'flows') {
    if (get) ctx.route = 'listFlows';
    return;
  }
  if (rest.startsWith('flows/')) {
    const tail = rest.slice(6);
    const slash = tail.indexOf('/');
    const id = decode(slash < 0 ? tail : tail.slice(0, slash));
    if (id === undefined) return;
    ctx.param = id;
    if (slash < 0) {
      if (get) ctx.route = 'getFlow';
      return;
    }
    const action = tail.slice(slash + 1);
    if (post && action === 'run') ctx.route = 'run';
    else if (post && action === 'stream') ctx.route = 'stream';
    return;
  }
  if (rest.startsWith('runs/')) {
    const id = decode(rest.slice(5));
    if (id !== undefined && get) {
      ctx.route = 'getRun';
      ctx.param = id;
    }
    return;
  }
  if (rest === 'sessions') {
    if (post) ctx.route = 'createSession';
    return;
  }
  if (rest.startsWith('sessions/') && rest.endsWith('/history')) {
    const id = decode(rest.slice(9, -8));
    if (id !== undefined && get) {
      ctx.route = 'getHistory';
      ctx.param = id;
    }
    return;
  }
  if (rest === 'analytics/usage' && get) ctx.route = 'getUsage';
}
