/**
 * Who answered a token's 429s: the service, or something in front of it (a gateway's
 * `limit_req`, a proxy). Evidence of the latter is a body that is not the service's error object,
 * another `Server` or `Via` than the service's admissions carried, or none of the X-RateLimit-*
 * headers where its admissions carry them. Missing headers alone are none: a service may send none.
 */
import type { RequestSample } from '../core/types.js';

/** Distinct origins of admissions kept (a service behind a few proxies has a few). */
const MAX_ORIGINS = 8;

/** The Server and Via headers of an answer, as one key (what answered it). */
const originOf = (s: Pick<RequestSample, 'server' | 'via'>): string => `${s.server ?? ''}\u0000${s.via ?? ''}`;

/** What the admissions said of their origin. */
export interface OriginTracker {
  /** An admitted answer (`headerless`: it carried no X-RateLimit-* header). */
  admitted(sample: RequestSample, headerless: boolean): void;
  /** True when a 429 has evidence of another answerer than the service. */
  fromGateway(sample: RequestSample, headerless: boolean): boolean;
}

/** Creates an empty tracker. */
export function createOriginTracker(): OriginTracker {
  const origins = new Set<string>();
  // The last origin added: an answer from it (nearly every one) costs no string.
  let lastServer: string | undefined;
  let lastVia: string | undefined;
  let any = false;
  let withHeaders = 0;
  return {
    admitted(sample, headerless) {
      if (!any || sample.server !== lastServer || sample.via !== lastVia) {
        if (origins.size < MAX_ORIGINS) origins.add(originOf(sample));
        lastServer = sample.server;
        lastVia = sample.via;
        any = true;
      }
      if (!headerless) withHeaders++;
    },
    fromGateway(sample, headerless) {
      if (sample.violations.some((v) => v.path === 'error' && v.expected === 'error body')) return true;
      if (origins.size > 0 && origins.size < MAX_ORIGINS && !origins.has(originOf(sample))) return true;
      return headerless && withHeaders > 0;
    },
  };
}
