/**
 * How a check names a failed answer: the interface's code from the body, else one by status; and
 * an answer without the interface's error object is said to be a gateway's (nginx's HTML 502, a
 * bare 429 of a gateway's limit), so an incident does not blame the service's own errors for it.
 */
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/api/index.js';
import { errorResult } from '../../src/api/response.js';
import { createFakeClock } from '../../src/core/clock.js';
import { FOREIGN_ANSWER, runCheck, type CheckContext, type CheckRequest } from '../../src/probe/index.js';
import type { TimedResponse } from '../../src/probe/index.js';

function answering(status: number, body: string): CheckContext & { sent: CheckRequest[] } {
  const sent: CheckRequest[] = [];
  const res: TimedResponse = {
    status,
    headers: {},
    body,
    errorCode: undefined,
    instants: { startNs: 0, lookupNs: undefined, connectNs: 1, secureNs: undefined, headersNs: 2, endNs: 3 },
    tls: undefined,
  };
  return {
    baseUrl: 'http://127.0.0.1:1/v1',
    webhookHost: 'http://127.0.0.1:1',
    send: async (req) => {
      sent.push(req);
      return res;
    },
    flowId: async () => ({ ok: true, id: 'flow_1' }),
    forgetFlow: () => undefined,
    sent,
  };
}

const NGINX_502 = '<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx/1.22.1</center>\r\n</body>\r\n</html>\r\n';

describe('probe checks: failed answers', () => {
  it("names a gateway's HTML page as not the service's, on every check that reads an answer", async () => {
    for (const check of ['listFlows', 'getFlow', 'run', 'stream'] as const) {
      const out = await runCheck(check, answering(502, NGINX_502));
      expect(out).toMatchObject({ success: false, status: 502, error: 'UNKNOWN', detail: FOREIGN_ANSWER });
    }
    // A bare 429 (a gateway's limit_req): the code still follows the status.
    expect(await runCheck('listFlows', answering(429, ''))).toMatchObject({ error: 'RATE_LIMITED', detail: FOREIGN_ANSWER });
  });

  it("leaves the service's own error answers unqualified, known code or not", async () => {
    const own = JSON.stringify({ error: { code: 'SERVICE_UNAVAILABLE', message: 'down for maintenance' } });
    const out = await runCheck('listFlows', answering(503, own));
    expect(out).toMatchObject({ success: false, status: 503, error: 'SERVICE_UNAVAILABLE' });
    expect(out.detail).toBeUndefined();
    const odd = await runCheck('listFlows', answering(502, JSON.stringify({ error: { code: 'UPSTREAM_DOWN' } })));
    expect(odd).toMatchObject({ error: 'UNKNOWN' });
    expect(odd.detail).toBeUndefined();
  });
});

describe("one rule for \"is this the service's own error body?\"", () => {
  it('probe and run agree on every body', async () => {
    const ctx = { clock: createFakeClock(), validate: true, redact: (x: string) => x };
    const t = { headersNs: 1, endNs: 2, sentNs: 0, connectNs: 0, tlsNs: 0 };
    const bodies = [NGINX_502, '', '{}', '{"error":"down"}', '[1]', '{"error":{"code":"INTERNAL_ERROR","message":"x"}}', '{"error":{"message":"no code"}}', '{"error":{"code":"UPSTREAM_DOWN"}}'];
    for (const body of bodies) {
      const probe = await runCheck('listFlows', answering(502, body));
      const run = errorResult(ctx, 'listFlows', { ...t, status: 502, headers: {}, text: body }, 0);
      const foreign = !run.ok && run.error instanceof ApiError ? run.error.foreignBody !== undefined : undefined;
      expect(probe.detail === FOREIGN_ANSWER, body).toBe(foreign);
    }
  });
});
