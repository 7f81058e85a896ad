/**
 * Did-you-mean for a scenario's unknown fields, at every level: `laod` → `load`,
 * `load.duraton` → `duration`, and k6's options written at the top (`vus`, `stages`) pointed to
 * where flowgauge keeps them. The allowed fields are read from the strict object's own message,
 * which every schema of the scenario format writes as `allowed…: a, b, c` (or `has only a and b`),
 * so the list the user reads and the list the suggestion comes from cannot drift apart. Pure.
 */
import { closestName } from '../core/edit-distance.js';

/** k6 options a k6 user writes at a scenario's top level, and where flowgauge has them. */
const K6_TOP_LEVEL: Readonly<Record<string, string>> = {
  vus: 'write load: { executor: constant-concurrency, concurrency: N } (a closed model, as k6 virtual users; the default is an open model, load.rate)',
  duration: 'write load.duration',
  stages: 'write load: { executor: ramping-arrival-rate, stages: [{ duration, target }] } (target is a rate such as "10/s")',
  rate: 'write load.rate',
  executor: 'write load.executor',
  iterations: 'give load.duration: flowgauge schedules by time, not by a count of iterations',
  options: 'write its fields at the top level of the scenario',
  exec: 'write a journey (a function in a .ts scenario) or steps',
};

/** The field names a strict object's unknown-field message lists, or none. */
export function allowedKeysIn(message: string): string[] {
  const listed = /allowed[^:]*: (.+)$/s.exec(message) ?? /has only (.+)$/s.exec(message);
  if (listed === null) return [];
  return (listed[1] as string).split(/, | and /).map((k) => k.trim()).filter((k) => /^[A-Za-z_$][\w$]*$/.test(k));
}

/**
 * The message for one unknown field `key` where `allowedMessage` lists the allowed ones:
 * the nearest allowed field when near enough to be a typo, k6's top-level options with their
 * flowgauge place, then the allowed list.
 */
export function unknownKeyMessage(key: string, allowedMessage: string, atTopLevel: boolean): string {
  const near = closestName(key, allowedKeysIn(allowedMessage));
  const k6 = atTopLevel ? K6_TOP_LEVEL[key] : undefined;
  const hint = near !== undefined && near !== key ? `did you mean "${near}"? ` : k6 !== undefined ? `for k6's ${key}, ${k6}; ` : '';
  return `unknown field ${JSON.stringify(key)}; ${hint}${allowedMessage}`;
}

/**
 * For an object that matched none of the forms a message lists (`{ op, … }, { sleep: "2s" }`):
 * the listed field nearest to each of its fields, as `; did you mean "sleep" for "slep"?`, or
 * nothing. Fields starting with `~` are the schema's own routing.
 */
export function formKeyHint(input: unknown, formsMessage: string): string {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) return '';
  const listed = [...formsMessage.matchAll(/[{,]\s*([A-Za-z_$][\w$]*)/g)].map((m) => m[1] as string);
  const hints: string[] = [];
  for (const key of Object.keys(input)) {
    if (key.startsWith('~') || listed.includes(key)) continue;
    const near = closestName(key, listed);
    if (near !== undefined) hints.push(`"${near}" for "${key}"`);
  }
  return hints.length === 0 ? '' : `; did you mean ${hints.join(', ')}?`;
}
