// Modelled on k6's documented first script (http_get.js) and its Checks example.
import { check, sleep } from 'k6';
import http from 'k6/http';

const BASE_URL = __ENV.BASE_URL || 'https://api.example.com/v1';

export default function () {
  const res = http.get(`${BASE_URL}/flows`);
  check(res, {
    'is status 200': (r) => r.status === 200,
    'lists flows': (r) => r.json().flows.length > 0,
  });
  sleep(0.1);
}
