/**
 * The run's clients come from one builder: one client per token, sized to its scenarios (or the
 * given cap), and a worker thread's clients are the same ones rebuilt from their own options with
 * the thread's share of the connections, sharing as the originals did.
 */
import { describe, expect, it } from 'vitest';
import { clientSpecOf, createClient, type Client } from '../../src/api/index.js';
import { InvalidArgumentError } from '../../src/core/errors.js';
import { clientSpecsOf, clientsFromSpecs, closeRunClients, connectionsFor, createRunClients } from '../../src/run/run-clients.js';
import { planOf, resolveRunPlan, resolveScenario } from '../../src/scenario/index.js';

const BASE = 'http://127.0.0.1:9/v1';
const tenants = planOf(
  resolveRunPlan({
    name: 'three',
    scenarios: {
      a: { tier: 'pro', load: { rate: '1/s', duration: '1s', maxInFlight: 30 }, mix: [{ op: 'listFlows' }] },
      b: { tier: 'pro', load: { executor: 'constant-concurrency', concurrency: 7, duration: '1s' }, mix: [{ op: 'listFlows' }] },
      c: { tier: 'free', load: { rate: '1/s', duration: '1s', maxInFlight: 5 }, mix: [{ op: 'listFlows' }] },
    },
  }),
);

/** The connections a spec asks for (the spec is opaque outside api/; its data is read here only to check it). */
const connectionsOf = (spec: unknown): number => (spec as { connections: number }).connections;

describe('the run clients', () => {
  it('one client for a single scenario, sized to its need', async () => {
    const plan = planOf(resolveScenario({ name: 'one', tier: 'pro', load: { rate: '1/s', duration: '1s', maxInFlight: 12 }, mix: [{ op: 'listFlows' }] }));
    const c = createRunClients(plan, { baseUrl: BASE, token: 't' });
    expect(c.clients).toEqual({});
    expect(connectionsOf(clientSpecOf(c.client))).toBe(12);
    await closeRunClients(c);
  });

  it('one client per token, shared by the scenarios that send with it, each sized to its scenarios', async () => {
    const c = createRunClients(tenants, { baseUrl: BASE, token: 'default', tokens: { a: 'x', b: 'x', c: 'y' } });
    expect(c.clients.a).toBe(c.clients.b);
    expect(c.clients.c).not.toBe(c.clients.a);
    expect(c.client).toBe(c.clients.a);
    expect(connectionsOf(clientSpecOf(c.clients.a as Client))).toBe(connectionsFor(tenants.scenarios.slice(0, 2)));
    expect(connectionsOf(clientSpecOf(c.clients.a as Client))).toBe(37);
    expect(connectionsOf(clientSpecOf(c.clients.c as Client))).toBe(5);
    await closeRunClients(c);
  });

  it('a cap is each client\'s cap', async () => {
    const c = createRunClients(tenants, { baseUrl: BASE, token: 'default', tokens: { a: 'x', b: 'x', c: 'y' }, connections: 4 });
    expect(connectionsOf(clientSpecOf(c.clients.a as Client))).toBe(4);
    expect(connectionsOf(clientSpecOf(c.clients.c as Client))).toBe(4);
    await closeRunClients(c);
  });

  it('a worker rebuilds the same clients from their specs: its share of the connections, rounded up, the sharing kept', async () => {
    const c = createRunClients(tenants, { baseUrl: BASE, token: 'default', tokens: { a: 'x', b: 'x', c: 'y' }, options: { headers: { 'x-tenant': 'k' } } });
    const specs = clientSpecsOf(c, 2);
    expect(specs.specs).toHaveLength(2);
    expect(specs.specs.map(connectionsOf)).toEqual([19, 3]);
    // Plain data: what a message to a worker thread carries.
    const copied = structuredClone(specs);
    const w = clientsFromSpecs(copied);
    expect(w.clients.a).toBe(w.clients.b);
    expect(w.clients.c).not.toBe(w.clients.a);
    expect(w.client).toBe(w.clients.a);
    expect(w.clients.a?.baseUrl).toBe(BASE);
    // Rebuilt from its own options: the header and the token go with it.
    expect((copied.specs[0] as unknown as { headers: unknown; token: string })).toMatchObject({ headers: { 'x-tenant': 'k' }, token: 'x' });
    await closeRunClients(w);
    await closeRunClients(c);
  });

  it('refuses a client createClient did not make, for a worker cannot rebuild it', () => {
    const real = createClient({ baseUrl: BASE, token: 't' });
    const wrapped = { ...real };
    expect(() => clientSpecsOf({ client: wrapped, clients: {} }, 2)).toThrow(InvalidArgumentError);
    void real.close();
  });
});
