/** A run against a fresh reference service that notifies a receiver of the run's own. */
import { createClient } from '../../src/api/index.js';
import { executeRun, startNotificationTracking, type NotificationTracking, type RunOptions, type RunOutcome } from '../../src/run/index.js';
import { withWishes, type RunWishes } from '../run/helpers.js';
import { resolveScenario } from '../../src/scenario/index.js';
import { startReferenceService, type ReferenceService, type ReferenceServiceOptions } from '../../src/target/index.js';

export const TOKEN = 'fg_notify_test_token_do_not_leak';
export const WEBHOOK_SECRET = 'whsec_notify_test_do_not_leak';

export interface NotifiedRun {
  readonly outcome: RunOutcome;
  readonly service: ReferenceService;
  readonly tracking: NotificationTracking;
  close(): Promise<void>;
}

/** Starts the receiver, then the service pointed at it, then runs `scenario`. */
export async function runWithReceiver(
  scenario: Record<string, unknown>,
  opts: { service?: ReferenceServiceOptions; run?: Partial<RunOptions> & RunWishes; graceMs?: number; events?: string[] } = {},
): Promise<NotifiedRun> {
  const tracking = await startNotificationTracking({ port: 0, secret: WEBHOOK_SECRET, graceMs: opts.graceMs ?? 3000 });
  const service = await startReferenceService({
    latency: 'none',
    tokens: { [TOKEN]: { account: 'acct_b', tier: { limitPerMinute: 1_000_000 } } },
    notifications: [{ webhook_url: tracking.url, events: opts.events ?? ['*'], secret: WEBHOOK_SECRET }],
    ...opts.service,
  });
  const client = createClient({ baseUrl: service.baseUrl, token: TOKEN, connections: 8 });
  try {
    const outcome = await executeRun({
      scenario: resolveScenario(scenario),
      client,
      target: { baseUrl: service.baseUrl, embedded: true },
      ...withWishes({ notifications: tracking, ...opts.run }),
    });
    return {
      outcome,
      service,
      tracking,
      close: async () => {
        await service.close();
        await tracking.close();
      },
    };
  } finally {
    await client.close();
  }
}
