import { describe, expect, it } from 'vitest';
import { API_ERROR_CODES, API_ERROR_STATUS, apiErrorCodeOfStatus } from '../../src/core/codes.js';

describe('apiErrorCodeOfStatus', () => {
  it('is the one home of the status-to-code table: every code maps back from its status, others to nothing', () => {
    for (const c of API_ERROR_CODES) expect(apiErrorCodeOfStatus(API_ERROR_STATUS[c])).toBe(c);
    expect(apiErrorCodeOfStatus(418)).toBeUndefined();
    expect(apiErrorCodeOfStatus(200)).toBeUndefined();
  });
});
