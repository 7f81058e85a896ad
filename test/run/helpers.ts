/** Runs a scenario in-process against a fresh embedded reference service. */
import { createClient } from '../../src/api/index.js';
import type { RequestTracer, RunMetrics } from '../../src/export/index.js';
import { createMetricsOutput, createTracingOutput, executeRun, type FollowOptions, type RunOptions, type RunOutcome, type RunOutput } from '../../src/run/index.js';
import { resolveScenario } from '../../src/scenario/index.js';
import { startReferenceService, type ReferenceService, type ReferenceServiceOptions } from '../../src/target/index.js';

/** A token with a custom limit, so tests choose the limit per (short) window. */
export const TEST_TOKEN = 'fg_test_token_do_not_leak';

export interface RunAgainst {
  readonly outcome: RunOutcome;
  readonly service: ReferenceService;
}

/**
 * Starts a service (with `TEST_TOKEN` at `limitPerMinute`), runs `scenario` against it, and
 * hands both back; `during` may change the service while the run goes on.
 */
export async function runAgainstService(
  scenario: Record<string, unknown>,
  opts: {
    service?: ReferenceServiceOptions;
    limitPerMinute?: number;
    connections?: number;
    during?: (service: ReferenceService) => void;
    /** Run options, and what the run should do besides measuring (following is on unless `follow: false`). */
    run?: Partial<RunOptions> & RunWishes;
  } = {},
): Promise<RunAgainst & { close(): Promise<void> }> {
  const service = await startReferenceService({
    latency: 'none',
    tokens: { [TEST_TOKEN]: { account: 'acct_b', tier: { limitPerMinute: opts.limitPerMinute ?? 1_000_000 } } },
    ...opts.service,
  });
  const client = createClient({ baseUrl: service.baseUrl, token: TEST_TOKEN, connections: opts.connections ?? 16 });
  opts.during?.(service);
  let outcome: RunOutcome;
  try {
    outcome = await executeRun({
      scenario: resolveScenario(scenario),
      client,
      target: { baseUrl: service.baseUrl, embedded: true },
      ...withWishes(opts.run),
    });
  } catch (err) {
    await client.close();
    await service.close();
    throw err;
  }
  await client.close();
  return { outcome, service, close: () => service.close() };
}

/**
 * What a test asks of a run besides measuring, as the CLI asks it: following and the generator's
 * watch are on unless turned off; `metrics` and `tracer` are fed by their outputs; `extra` outputs
 * come after those.
 */
export interface RunWishes {
  readonly metrics?: RunMetrics | undefined;
  readonly tracer?: RequestTracer | undefined;
  readonly follow?: FollowOptions | false | undefined;
  readonly generator?: boolean | undefined;
  readonly extra?: readonly RunOutput[] | undefined;
}

/** Run options with what `wishes` describe (as the CLI builds them), plus any outputs given. */
export function withWishes(run: (Partial<RunOptions> & RunWishes) | undefined): Partial<RunOptions> {
  const { metrics, tracer, follow, generator, extra, outputs, ...rest } = run ?? {};
  const tracing = tracer === undefined ? undefined : createTracingOutput(tracer);
  // The receiver's counters join the run's registry, as the Prometheus exporter has them join.
  if (metrics !== undefined) rest.notifications?.attachMetrics(metrics);
  return {
    ...rest,
    follow: follow ?? true,
    generator: generator ?? true,
    outputs: [...(metrics !== undefined ? [createMetricsOutput(metrics)] : []), ...(tracing !== undefined ? [tracing] : []), ...(extra ?? []), ...(outputs ?? [])],
  };
}
