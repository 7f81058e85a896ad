/**
 * The one guard for "a JSON object": not null, not an array. Untrusted input (scenario files,
 * report files, answers of the target, webhook bodies) is checked with it before its fields are read.
 */
export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
