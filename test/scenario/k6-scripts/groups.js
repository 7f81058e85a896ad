// Modelled on k6's documented groups: each group a named step, requests inside it.
import { group, sleep, check, fail } from 'k6';
import http from 'k6/http';

const BASE = __ENV.BASE_URL || 'http://localhost:8080/v1';
const params = { headers: { 'Content-Type': 'application/json' } };

export function setup() {
  const res = http.get(`${BASE}/flows`);
  return { flowId: res.json().flows[0].id };
}

export default function (data) {
  group('visit the flow list', function () {
    const res = http.get(`${BASE}/flows/${data.flowId}`);
    if (!check(res, { 'flow found': (r) => r.status === 200 })) {
      fail('no flow');
    }
  });

  group('chat', () => {
    const session = http.post(`${BASE}/sessions`, JSON.stringify({ flow_id: data.flowId, user_id: 'k6' }), params);
    const sessionId = session.json('id');
    group('a turn', function () {
      const res = http.post(`${BASE}/flows/${data.flowId}/run`, JSON.stringify({ input: 'Hello', session_id: sessionId }), params);
      check(res, { 'run completed': (r) => r.status === 200 });
    });
    const history = http.get(`${BASE}/sessions/${sessionId}/history`);
    check(history, { 'history kept': (r) => r.json('messages').length >= 2 });
  });
  sleep(0.1);
}
