import { describe, expect, it } from 'vitest';
import { ConfigError, MAX_SHOWN_ISSUES } from '../../src/core/errors.js';

describe('ConfigError', () => {
  it('lists every problem up to the bound, then counts the rest; all stay in issues', () => {
    const issues = Array.from({ length: 100 }, (_, i) => ({ path: `thresholds.k${i}`, message: `bad key ${i}` }));
    const err = new ConfigError(issues, 'scenario "s" (s.json)');
    const lines = err.message.split('\n');
    expect(lines[0]).toBe('invalid scenario "s" (s.json) (100 problems):');
    expect(lines.slice(1, -1)).toEqual(issues.slice(0, MAX_SHOWN_ISSUES).map((i) => `  - ${i.path}: ${i.message}`));
    expect(lines.at(-1)).toBe(`  … and ${100 - MAX_SHOWN_ISSUES} more`);
    expect(err.issues).toHaveLength(100);
  });

  it('says an allowed list once, under the first problem that has it', () => {
    const long = 'a, b, c';
    const err = new ConfigError([
      { path: 'x', message: 'unknown "x"', allowed: long },
      { path: 'y', message: 'wrong type' },
      { path: 'z', message: 'unknown "z"', allowed: long },
      { path: 'w', message: 'unknown "w"', allowed: 'd, e' },
    ]);
    expect(err.message).toBe(['invalid configuration (4 problems):', '  - x: unknown "x"', '    allowed: a, b, c', '  - y: wrong type', '  - z: unknown "z"', '  - w: unknown "w"', '    allowed: d, e'].join('\n'));
  });

  it('a single problem reads as before', () => {
    expect(new ConfigError([{ path: '', message: 'must be an object' }], 'scenario').message).toBe('invalid scenario (1 problem):\n  - (root): must be an object');
  });
});
