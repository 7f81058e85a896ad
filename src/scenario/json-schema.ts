/**
 * The scenario format as a JSON Schema (draft 2020-12), generated from the zod schema the
 * loader validates with, so editors complete and check `.json`/`.yaml` scenarios against the
 * same rules. What JSON Schema cannot say (one of mix/journey/steps, template names, a journey
 * in code) the loader still checks, by path.
 */
import { z } from 'zod';
import { DEFAULT_EXECUTOR } from '../load/index.js';
import { scenarioSchema } from './schema.js';
import { isRecord } from '../core/is-record.js';

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => isRecord(v);

/** Drops the loader's own routing field (`~kind`) wherever it appears. */
function withoutRouting(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withoutRouting);
  if (!isObject(v)) return v;
  const out: Json = {};
  for (const [k, x] of Object.entries(v)) {
    if (k === 'properties' && isObject(x)) out[k] = Object.fromEntries(Object.entries(x).filter(([p]) => !p.startsWith('~')).map(([p, s]) => [p, withoutRouting(s)]));
    else if (k === 'required' && Array.isArray(x)) out[k] = x.filter((p) => typeof p !== 'string' || !p.startsWith('~'));
    else out[k] = withoutRouting(x);
  }
  return out;
}

/** The JSON Schema of one scenario, and of a file of several (`scenarios`). */
export function scenarioJsonSchema(): Json {
  const one = withoutRouting(z.toJSONSchema(scenarioSchema, { io: 'input', unrepresentable: 'any' })) as Json;
  const { $schema, ...scenario } = one;
  const props = scenario.properties as Json;
  // `executor` may be left out: the default executor is taken.
  const load = props.load as { oneOf?: Json[]; anyOf?: Json[] };
  for (const branch of load.oneOf ?? load.anyOf ?? []) {
    const exec = (branch.properties as Json | undefined)?.executor as Json | undefined;
    if (exec?.const === DEFAULT_EXECUTOR) branch.required = (branch.required as string[]).filter((r) => r !== 'executor');
  }
  // A threshold may be its expression alone ("<2s"), which the loader reads as { expr }.
  const thresholds = props.thresholds as Json | undefined;
  if (thresholds !== undefined) thresholds.additionalProperties = { anyOf: [{ type: 'string', minLength: 1 }, thresholds.additionalProperties] };
  delete props.journey;
  const { name: _name, ...member } = props;
  const planMember: Json = {
    type: 'object',
    properties: { ...member, tokenEnv: { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_]{0,127}$' }, startAfter: { type: ['number', 'string'] } },
    required: ((scenario.required as string[]) ?? []).filter((r) => r !== 'name'),
    additionalProperties: false,
  };
  const plan: Json = {
    type: 'object',
    properties: {
      name: props.name,
      description: { type: 'string' },
      scenarios: { type: 'object', propertyNames: { pattern: '^[a-z0-9][a-z0-9-]{0,62}$' }, additionalProperties: planMember, minProperties: 1, maxProperties: 20 },
      thresholds: props.thresholds,
      slo: props.slo,
      seed: props.seed,
    },
    required: ['name', 'scenarios'],
    additionalProperties: false,
  };
  return {
    $schema,
    $id: 'https://flowgauge.dev/schemas/scenario.schema.json',
    title: 'flowgauge scenario',
    description: 'One scenario (mix, or steps), or a run of several scenarios at once. See docs/scenarios.md.',
    anyOf: [scenario, plan],
  };
}
