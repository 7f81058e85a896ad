/** Runs a scenario in-process against a fresh embedded reference service. */
import { createClient } from '../../src/api/index.js';
import { createRunObservers, executeRun, type RunObserverWishes, type RunOptions, type RunOutcome } from '../../src/run/index.js';
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
    run?: Partial<RunOptions> & RunObserverWishes;
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
      ...withObservers(opts.run),
    });
  } catch (err) {
    await client.close();
    await service.close();
    throw err;
  }
  await client.close();
  return { outcome, service, close: () => service.close() };
}

/** Run options with the observers that `wishes` describe (as the CLI builds them), plus any given. */
export function withObservers(run: (Partial<RunOptions> & RunObserverWishes) | undefined): Partial<RunOptions> {
  const { metrics, tracer, onProgress, notifications, follow, audit, extra, observers, ...rest } = run ?? {};
  return { ...rest, observers: [...createRunObservers({ metrics, tracer, onProgress, notifications, follow, audit, extra }), ...(observers ?? [])] };
}
