// Modelled on k6's documented scenarios: one script, several executors, each its own function.
import http from 'k6/http';
import { check, sleep } from 'k6';

const BASE = __ENV.BASE_URL;

export const options = {
  scenarios: {
    browse: { executor: 'constant-vus', exec: 'browse', vus: 2, duration: '30s' },
    runFlows: {
      executor: 'constant-arrival-rate',
      exec: 'runFlow',
      rate: 30,
      timeUnit: '1m',
      duration: '30s',
      preAllocatedVUs: 2,
      maxVUs: 10,
      startTime: '5s',
    },
    ramp: {
      executor: 'ramping-arrival-rate',
      exec: 'browse',
      startRate: 0,
      timeUnit: '1s',
      preAllocatedVUs: 2,
      stages: [
        { target: 4, duration: '10s' },
        { target: 0, duration: '5s' },
      ],
    },
    perVu: { executor: 'per-vu-iterations', exec: 'session', vus: 1, iterations: 3, maxDuration: '20s' },
    shared: { executor: 'shared-iterations', exec: 'session', vus: 2, iterations: 10 },
    steady: { executor: 'ramping-vus', exec: 'browse', startVUs: 0, stages: [{ duration: '10s', target: 5 }], gracefulRampDown: '0s' },
  },
};

export function browse() {
  const res = http.get(`${BASE}/flows`);
  check(res, { 'flows listed': (r) => r.status === 200 });
  sleep(0.5);
}

export function runFlow() {
  const flowId = http.get(`${BASE}/flows?limit=1`).json('flows.0.id');
  const res = http.post(`${BASE}/flows/${flowId}/run`, JSON.stringify({ input: 'Summarise the release notes.' }), {
    headers: { 'Content-Type': 'application/json' },
  });
  check(res, { 'run answered': (r) => r.status === 200 });
}

export const session = () => {
  const flows = http.get(`${BASE}/flows`).json('flows');
  const res = http.post(`${BASE}/sessions`, JSON.stringify({ flow_id: flows[0].id, user_id: `user-${__ITER}` }));
  check(res, { 'session created': (r) => r.status === 201 || r.status === 200 });
  sleep(0.2);
};
