/** Operation names of the client; they are the `ops` keys of report.json and the `operation` label. */
export const OPS = [
  'run',
  'stream',
  'getRun',
  'listFlows',
  'getFlow',
  'createSession',
  'getHistory',
  'getUsage',
  'trigger',
] as const;

/** One operation of the interface, by its client method name. */
export type OpName = (typeof OPS)[number];

/** True when `s` names an operation. */
export function isOpName(s: unknown): s is OpName {
  return typeof s === 'string' && (OPS as readonly string[]).includes(s);
}

/**
 * A request of a journey outside the interface's operations (`vu.http`), counted under its own
 * name: `http:<name>` (letters, digits, `.`, `_`, `-`; at most 64).
 */
export type HttpOpName = `http:${string}`;

/** What the `ops` of a report are keyed by: an operation, or a journey's own request. */
export type OpKey = OpName | HttpOpName;

/** A map by operation, with room for a journey's own requests (`http:<name>`). */
export type ByOp<T> = Partial<Record<OpName, T>> & { [k: HttpOpName]: T };

/** The form of the name in `http:<name>`. */
export const HTTP_OP_NAME = /^[A-Za-z0-9._-]{1,64}$/;

/** True when `s` is `http:<name>`. */
export function isHttpOp(s: unknown): s is HttpOpName {
  return typeof s === 'string' && s.startsWith('http:') && HTTP_OP_NAME.test(s.slice(5));
}

/** The keys of an `ops` map in report order: the operations in `OPS` order, then `http:` ones by name. */
export function opKeysOf(ops: Readonly<Partial<Record<string, unknown>>>): OpKey[] {
  const own = OPS.filter((op) => ops[op] !== undefined);
  const http = Object.keys(ops).filter((k) => isHttpOp(k) && ops[k] !== undefined).sort() as HttpOpName[];
  return [...own, ...http];
}
