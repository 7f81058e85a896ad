/**
 * The probe's Pushgateway, as the CLI gives it: the group's further labels (`--push-label`) and
 * the last push of a round or a daemon, bounded, whose failure is said and never fatal.
 */
import { DEFAULT_FINAL_PUSH_TIMEOUT_MS, type PushgatewayPusher } from '../export/index.js';
import { UsageError } from './context.js';
import type { TextSink } from './io.js';

/** Labels the Pushgateway's grouping key already has, or that Prometheus reserves. */
const RESERVED_PUSH_LABELS = new Set(['job', 'target']);

/** Parses `--push-label name=value` (repeatable): further labels of the Pushgateway group. */
export function parsePushLabels(input: readonly string[] | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const item of input ?? []) {
    const eq = item.indexOf('=');
    const name = eq > 0 ? item.slice(0, eq) : '';
    const value = item.slice(eq + 1);
    if (!/^[a-zA-Z_][a-zA-Z0-9_]*$/.test(name) || name.startsWith('__') || value === '' || /[\r\n]/.test(value) || value.length > 200) {
      throw new UsageError(`--push-label "${item}" is not name=value (a Prometheus label name, a value of at most 200 characters), e.g. --push-label region=eu-west-1`);
    }
    if (RESERVED_PUSH_LABELS.has(name)) throw new UsageError(`--push-label ${name}=…: the group's ${name} is set already (${name === 'target' ? '--target-name' : 'flowgauge_probe'})`);
    if (name in out) throw new UsageError(`--push-label ${name} is given twice`);
    out[name] = value;
  }
  return out;
}

/** The last push, bounded (`finalTimeoutMs`); what was not delivered is said, never fatal. */
export async function finalPush(pusher: PushgatewayPusher, stderr: TextSink): Promise<void> {
  const pushed = await pusher.stop();
  if (!pushed.ok) {
    const why = pushed.error === 'TIMEOUT' ? `no answer within ${DEFAULT_FINAL_PUSH_TIMEOUT_MS / 1000} s` : (pushed.error ?? `HTTP ${pushed.status}`);
    stderr.write(`flowgauge: warning: the probe metrics were not delivered to ${pusher.shownUrl} (${why}); the history has the records, and the next push carries their totals\n`);
  }
}
