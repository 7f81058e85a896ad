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
