/**
 * The run's clients, built in one place: one client per token (scenarios that share a token
 * share one client, so the run sees them as one tenant — one rate-limit window, one audit — as the
 * service does), each with the connections its scenarios need so it never silently caps them. A
 * worker thread gets the same clients, rebuilt from each client's own options with its share of
 * the connections (`clientSpecsOf`).
 */
import { clientSpecOf, createClient, createClientFromSpec, type Client, type ClientOptions, type ClientSpec } from '../api/index.js';
import { InvalidArgumentError } from '../core/errors.js';
import { isClosedModel } from '../load/index.js';
import type { ResolvedRunPlan, ResolvedScenario } from '../scenario/index.js';

/** How the session makes the run's clients. */
export interface ClientWishes {
  /** The API address, e.g. `http://127.0.0.1:4000/v1`. */
  readonly baseUrl: string;
  /** The token of every scenario without one of its own in `tokens`. Never printed. */
  readonly token: string;
  /** Tokens by scenario name (tenants). */
  readonly tokens?: Readonly<Record<string, string>> | undefined;
  /** TLS trust, headers, proxy, transport, webhook host, timeouts: the same for every client. */
  readonly options?: Omit<ClientOptions, 'baseUrl' | 'token' | 'connections'> | undefined;
  /** A cap on each client's connections (`--connections`); default: what its scenarios need. */
  readonly connections?: number | undefined;
}

/** The clients of a run: the default one, and each scenario's. */
export interface RunClients {
  readonly client: Client;
  readonly clients: Readonly<Record<string, Client>>;
}

/**
 * Connections scenarios need so the client never caps them: the closed model's concurrency,
 * the open model's in-flight limit. A given cap stays an explicit cap.
 */
export function connectionsFor(scenarios: readonly ResolvedScenario[]): number {
  return Math.max(1, scenarios.reduce((n, s) => n + (isClosedModel(s.load) ? s.load.concurrency : s.load.maxInFlight), 0));
}

/** Builds the clients of `plan` as `w` says. */
export function createRunClients(plan: ResolvedRunPlan, w: ClientWishes): RunClients {
  const make = (token: string, scenarios: readonly ResolvedScenario[]): Client =>
    createClient({ ...w.options, baseUrl: w.baseUrl, token, connections: w.connections ?? connectionsFor(scenarios) });
  if (plan.scenarios.length < 2) return { client: make(w.token, plan.scenarios), clients: {} };
  const byToken = new Map<string, ResolvedScenario[]>();
  for (const s of plan.scenarios) {
    const token = w.tokens?.[s.name] ?? w.token;
    byToken.set(token, [...(byToken.get(token) ?? []), s]);
  }
  const clients: Record<string, Client> = {};
  for (const [token, scenarios] of byToken) {
    const client = make(token, scenarios);
    for (const s of scenarios) clients[s.name] = client;
  }
  return { client: clients[(plan.scenarios[0] as ResolvedScenario).name] as Client, clients };
}

/** The run's clients as data for a worker thread: each distinct client once, and which one each scenario uses. */
export interface ClientSpecs {
  readonly specs: readonly ClientSpec[];
  readonly client: number;
  readonly byScenario: Readonly<Record<string, number>>;
}

/** The specs of `c`'s clients, each with its connections split over `threads`. Throws for a client `createClient` did not make. */
export function clientSpecsOf(c: RunClients, threads: number): ClientSpecs {
  const distinct = [...new Set([c.client, ...Object.values(c.clients)])];
  const specs = distinct.map((client) => {
    const spec = clientSpecOf(client, threads);
    if (spec === undefined) throw new InvalidArgumentError('workers: every client of the run must come from createClient, so each worker thread can build its own');
    return spec;
  });
  return {
    specs,
    client: distinct.indexOf(c.client),
    byScenario: Object.fromEntries(Object.entries(c.clients).map(([name, client]) => [name, distinct.indexOf(client)])),
  };
}

/** The clients `clientSpecsOf` describes, sharing as the originals did. */
export function clientsFromSpecs(s: ClientSpecs): RunClients {
  const built = s.specs.map(createClientFromSpec);
  return {
    client: built[s.client] as Client,
    clients: Object.fromEntries(Object.entries(s.byScenario).map(([name, i]) => [name, built[i] as Client])),
  };
}

/** Closes every client of `c` once. */
export async function closeRunClients(c: RunClients): Promise<void> {
  await Promise.all([...new Set([c.client, ...Object.values(c.clients)])].map((x) => x.close()));
}
