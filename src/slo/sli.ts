/**
 * SLI classification: how one request counts against the availability objective
 * (docs/measuring.md, "SLI: what counts against the objective"). Pure; the throttle judgement comes from the rate-limit analyser.
 */
import type { RequestSample, SliClass, ThrottleClass } from '../core/types.js';

/** HTTP 429 Too Many Requests. */
const STATUS_TOO_MANY = 429;

/**
 * Classifies one request, row by row of the table in docs/measuring.md:
 *
 * | outcome | class |
 * |---|---|
 * | no response (status 0: timeout, connection error, DNS, TLS) | bad |
 * | 5xx | bad |
 * | 429 judged `expected` (client at or over the advertised limit) | excluded |
 * | 429 judged `premature` (or not judged, `none`) | bad |
 * | other 4xx on a negative test (the toolkit provoked it on purpose) | excluded |
 * | other 4xx NOT on a negative test | bad |
 * | 2xx/other on a negative test | excluded |
 * | 2xx with contract violations, or with an error code (malformed body, stream error event) | bad |
 * | 2xx with run status `failed`, or a stream without `end` | bad |
 * | 2xx otherwise | good |
 * | 1xx/3xx (the client never follows redirects, so the operation did not happen) | bad |
 * | a journey's own request marked outside the SLO (`vu.http` to another origin by default) | excluded |
 *
 * Why a 4xx outside negative tests is bad: the toolkit sent a request that the interface
 * states is valid (a real token, a flow that exists), and the service refused it. From the
 * user's side that is an unavailable operation, exactly like a 5xx. A wrong token in the
 * scenario would show up as 100 % `UNAUTHORIZED`, which is the loud failure it deserves.
 *
 * Why a negative test that got a 2xx is excluded rather than good: it measures input
 * validation, not availability; the collectors still record its status for the report.
 * A negative test that got a 5xx or no response is bad: the service failed regardless.
 *
 * Why a 429 with throttle `none` is bad: only the analyser can excuse a 429, and a caller
 * that did not ask it has no evidence the client was over the limit.
 */
export function classifySli(sample: RequestSample, throttle: ThrottleClass): SliClass {
  const { status } = sample;
  // Not the service's work (a journey's request to another origin): timed and counted apart.
  if (sample.outsideSlo === true) return 'excluded';
  if (status === 0) return 'bad';
  if (status >= 500) return 'bad';
  // An uncertain 429 is neither charged nor excused in silence: excluded here, counted apart by the analyser.
  if (status === STATUS_TOO_MANY) return throttle === 'expected' || throttle === 'uncertain' ? 'excluded' : 'bad';
  if (sample.negative) return 'excluded';
  if (status >= 400) return 'bad';
  if (status < 200 || status >= 300) return 'bad';
  return isGood2xx(sample) ? 'good' : 'bad';
}

/** A 2xx counts as good only when its body kept the contract and the work it reports succeeded. */
function isGood2xx(sample: RequestSample): boolean {
  if (sample.violations.length > 0) return false;
  if (sample.errorCode !== undefined) return false;
  if (sample.runStatus === 'failed') return false;
  if (sample.stream !== undefined && !sample.stream.complete) return false;
  return true;
}
