import { describe, expect, it } from 'vitest';
import { createContractViolationTable } from '../../src/collect/index.js';

describe('contract violation table', () => {
  it('groups list positions into one row per field', () => {
    const t = createContractViolationTable();
    t.add([
      { op: 'listFlows', path: 'flows[3].endpoint', expected: 'string', got: 'missing' },
      { op: 'listFlows', path: 'flows[17].endpoint', expected: 'string', got: 'missing' },
      { op: 'listFlows', path: 'total', expected: 'integer', got: 'string' },
    ]);
    expect(t.entries()).toEqual([
      { op: 'listFlows', path: 'flows[].endpoint', expected: 'string', got: 'missing', count: 2 },
      { op: 'listFlows', path: 'total', expected: 'integer', got: 'string', count: 1 },
    ]);
    expect(t.totals()).toEqual({ total: 3, droppedDistinct: 0, droppedCount: 0 });
  });

  it('keeps at most maxDistinct rows and counts the rest', () => {
    const t = createContractViolationTable(2);
    t.add([
      { op: 'run', path: 'a', expected: 'string', got: 'number' },
      { op: 'run', path: 'b', expected: 'string', got: 'number' },
      { op: 'run', path: 'c', expected: 'string', got: 'number' },
      { op: 'run', path: 'c', expected: 'string', got: 'number' },
    ]);
    expect(t.entries()).toHaveLength(2);
    expect(t.totals()).toEqual({ total: 4, droppedDistinct: 1, droppedCount: 2 });
  });
});
