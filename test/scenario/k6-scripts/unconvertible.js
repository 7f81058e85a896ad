// A k6 script that reaches past what converts: custom metrics, data, batches, cookies, WebSockets, a summary.
import http from 'k6/http';
import { check, sleep, randomSeed } from 'k6';
import ws from 'k6/ws';
import exec from 'k6/execution';
import { Counter, Rate } from 'k6/metrics';
import { SharedArray } from 'k6/data';
import { randomItem } from 'https://jslib.k6.io/k6-utils/1.2.0/index.js';
import { textSummary } from 'https://jslib.k6.io/k6-summary/0.0.1/index.js';

const prompts = new SharedArray('prompts', function () {
  return ['Hello', 'Summarise this', 'Translate that'];
});
const runs = new Counter('runs');
const ok = new Rate('ok');
randomSeed(42);

export const options = {
  vus: 1,
  duration: '5s',
  insecureSkipTLSVerify: true,
  noConnectionReuse: true,
};

function listFlows(limit) {
  return http.get(`${__ENV.BASE_URL}/flows?limit=${limit}`);
}

export default function () {
  const res = listFlows(2);
  check(res, { 'listed': (r) => r.status === 200 });
  runs.add(1);
  ok.add(res.status === 200);
  const prompt = randomItem(prompts);
  const [a, b] = http.batch([
    ['GET', `${__ENV.BASE_URL}/flows`],
    { method: 'GET', url: `${__ENV.BASE_URL}/analytics/usage` },
  ]);
  check(a, { 'batch answered': (r) => r.status === 200 && b.status === 200 && prompt.length > 0 });
  if (__VU > 1000) {
    const jar = http.cookieJar();
    ws.connect('ws://127.0.0.1:1/chat', {}, function (socket) {
      socket.close();
    });
    console.log(exec.scenario.iterationInTest, jar);
  }
  [1, 2].forEach((n) => http.get(`${__ENV.BASE_URL}/flows/${n}`));
  sleep(0.1);
}

export function teardown(data) {
  http.get(`${__ENV.BASE_URL}/flows`);
}

export function handleSummary(data) {
  return { stdout: textSummary(data, { indent: ' ' }) };
}
