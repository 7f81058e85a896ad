// Modelled on k6's documented thresholds, tags included.
import http from 'k6/http';
import { check } from 'k6';
import { Trend } from 'k6/metrics';

const waiting = new Trend('waiting_time');

export const options = {
  vus: 2,
  duration: '10s',
  thresholds: {
    http_req_failed: ['rate<0.05'],
    http_req_duration: ['p(95)<2000', 'p(99)<3000'],
    'http_req_duration{name:health}': ['p(95)<2000'],
    'http_req_duration{name:ListFlows}': [{ threshold: 'p(99)<3000', abortOnFail: true, delayAbortEval: '10s' }],
    'http_req_failed{name:health}': ['rate<0.05'],
    'http_reqs{name:health}': ['count>0'],
    checks: ['rate>0.9'],
    'checks{check:flows listed}': ['rate>0.9'],
    iteration_duration: ['p(95)<5000', 'med<4000'],
    waiting_time: ['avg<200'],
    'group_duration{group:::browse}': ['avg<200'],
    http_req_waiting: ['p(95)<100'],
  },
};

export default function () {
  const res = http.get(`${__ENV.BASE_URL}/flows`, { tags: { name: 'ListFlows' } });
  check(res, { 'flows listed': (r) => r.status === 200 });
  waiting.add(res.timings.duration);
  const health = http.get(__ENV.HEALTH_URL, { tags: { name: 'health' } });
  check(health, { 'healthy': (r) => r.status === 200 });
}
