/** Reading run ids out of answers whose shape the interface leaves open. */

/** The run id an acknowledgement may carry (the interface's has none; some services add one). */
export function runIdOfAck(ack: unknown): string | undefined {
  if (typeof ack !== 'object' || ack === null) return undefined;
  const a = ack as Record<string, unknown>;
  for (const k of ['run_id', 'runId', 'id']) if (typeof a[k] === 'string' && a[k] !== '') return a[k] as string;
  return undefined;
}
