/**
 * Every code the client's transports raise themselves (`createCodedError('FG_…')`) is named in
 * one table and maps to a documented `TransportErrorCode` there, not through the classifier's
 * last-resort `SOCKET_ERROR`.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TRANSPORT_ERROR_CODES } from '../../src/core/codes.js';
import { classifyTransportError, WIRE_CODES } from '../../src/transport/wire-errors.js';

const SRC = resolve(import.meta.dirname, '../../src');

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? tsFiles(p) : p.endsWith('.ts') ? [p] : [];
  });
}

/** Every `FG_…` code passed to `createCodedError` or a connection's `timeout` anywhere in src/. */
const raised = new Map<string, string>();
for (const file of tsFiles(SRC)) {
  const text = readFileSync(file, 'utf8');
  for (const m of text.matchAll(/(?:createCodedError|\.timeout)\(\s*['"](FG_[A-Z0-9_]+)['"]/g)) raised.set(m[1] as string, relative(SRC, file));
}

const table: Readonly<Record<string, string>> = WIRE_CODES;

describe('wire codes', () => {
  it('finds the raise sites', () => {
    expect(raised.size).toBeGreaterThan(5);
  });

  it('every code raised is in the table and maps to a documented transport code', () => {
    const bad = [...raised].filter(([code]) => !(TRANSPORT_ERROR_CODES as readonly string[]).includes(table[code] ?? '')).map(([code, file]) => `${code} (${file})`);
    expect(bad).toEqual([]);
  });

  it('the classifier gives each code its table entry', () => {
    for (const code of raised.keys()) {
      const err = Object.assign(new Error('x'), { code });
      expect([code, classifyTransportError(err, undefined)]).toEqual([code, table[code]]);
    }
  });
});
