/**
 * The flow catalogue: seeded flows per account, and the serialised bodies of the flow reads.
 * Flows never change while the service runs, so list pages and single-flow bodies are
 * serialised once and served from memory.
 */
import type { FlowSpec } from './options.js';
import { createPrng, hash32 } from './prng.js';

/** A flow as the service holds it. */
export interface FlowRecord {
  readonly id: string;
  readonly account: string;
  readonly name: string;
  readonly description: string;
  readonly status: 'published' | 'draft';
  readonly inputSchema: Readonly<Record<string, unknown>>;
  readonly outputSchema: Readonly<Record<string, unknown>>;
  readonly template: string | undefined;
  readonly createdAt: string;
  readonly updatedAt: string;
}

/** Status filter of the list read. */
export type FlowStatusFilter = 'published' | 'draft' | 'all';

/** The catalogue and its cached bodies. */
export interface Catalogue {
  get(id: string): FlowRecord | undefined;
  /** Serialised `GET /flows` body for one account page. */
  listBody(account: string, status: FlowStatusFilter, limit: number, offset: number): Buffer;
  /** Serialised `GET /flows/{id}` body. */
  detailBody(flow: FlowRecord): Buffer;
  readonly size: number;
}

interface Kind {
  readonly name: string;
  readonly description: string;
  readonly input: Record<string, string>;
  readonly output: Record<string, string>;
  readonly template?: string;
}

const KINDS: readonly Kind[] = [
  { name: 'Support Triage', description: 'Classifies a support ticket and drafts a first reply.', input: { input: 'string', customer: 'string' }, output: { reply: 'string', category: 'string' }, template: 'Ticket from {customer}: {message}' },
  { name: 'Invoice Extractor', description: 'Extracts totals, dates and parties from an invoice.', input: { input: 'string' }, output: { total: 'number', due_date: 'string' } },
  { name: 'Meeting Summariser', description: 'Summarises a meeting transcript into action items.', input: { input: 'string', attendees: 'array' }, output: { summary: 'string', actions: 'array' }, template: 'Summarise the meeting "{title}": {transcript}' },
  { name: 'Lead Qualifier', description: 'Scores an inbound lead against the ideal customer profile.', input: { input: 'string', company: 'string' }, output: { score: 'number', reason: 'string' } },
  { name: 'FAQ Assistant', description: 'Answers product questions from the knowledge base.', input: { input: 'string' }, output: { answer: 'string' }, template: '{question}' },
  { name: 'Sentiment Monitor', description: 'Rates the sentiment of a customer message.', input: { input: 'string' }, output: { sentiment: 'string', score: 'number' } },
  { name: 'Translation Helper', description: 'Translates text while keeping product terms.', input: { input: 'string', target_language: 'string' }, output: { translation: 'string' }, template: 'Translate to {language}: {text}' },
  { name: 'Contract Reviewer', description: 'Flags risky clauses in a contract draft.', input: { input: 'string' }, output: { findings: 'array' } },
  { name: 'Release Notes Writer', description: 'Turns merged changes into release notes.', input: { input: 'string', version: 'string' }, output: { notes: 'string' } },
  { name: 'Order Status Bot', description: 'Answers order status questions from order data.', input: { input: 'string', order_id: 'string' }, output: { answer: 'string' }, template: 'Order {order_id}: {question}' },
  { name: 'Resume Screener', description: 'Matches a resume against a job description.', input: { input: 'string' }, output: { match: 'number', summary: 'string' } },
  { name: 'Incident Summariser', description: 'Summarises an incident timeline for a postmortem.', input: { input: 'string' }, output: { summary: 'string', impact: 'string' } },
];

const DAY_MS = 86_400_000;

function schema(props: Record<string, string>): Record<string, unknown> {
  const properties: Record<string, { type: string }> = {};
  for (const [k, t] of Object.entries(props)) properties[k] = { type: t };
  return { type: 'object', properties };
}

/** Builds the default catalogue: `perAccount` flows per account, every fourth a draft. */
export function seedFlows(accounts: readonly string[], perAccount: number, seed: number, nowMs: number): FlowRecord[] {
  const out: FlowRecord[] = [];
  for (const account of accounts) {
    const prng = createPrng(hash32(`flows\u0000${account}`, seed));
    for (let i = 0; i < perAccount; i++) {
      const kind = KINDS[i % KINDS.length] as Kind;
      const round = Math.floor(i / KINDS.length);
      const created = nowMs - (perAccount - i) * DAY_MS - prng.int(0, 23) * 3_600_000;
      out.push({
        id: `flow_${prng.hex(12)}`,
        account,
        name: round === 0 ? kind.name : `${kind.name} ${round + 1}`,
        description: kind.description,
        status: i % 4 === 3 ? 'draft' : 'published',
        inputSchema: schema(kind.input),
        outputSchema: schema(kind.output),
        template: kind.template,
        createdAt: new Date(created).toISOString(),
        updatedAt: new Date(created + prng.int(0, 48) * 3_600_000).toISOString(),
      });
    }
  }
  return out;
}

/** Turns configured flow specs into records. */
export function flowsFromSpecs(specs: readonly FlowSpec[], nowMs: number): FlowRecord[] {
  return specs.map((s, i) => {
    const created = new Date(nowMs - (specs.length - i) * DAY_MS).toISOString();
    return {
      id: s.id,
      account: s.account,
      name: s.name ?? s.id,
      description: s.description ?? '',
      status: s.status ?? 'published',
      inputSchema: s.input_schema ?? schema({ input: 'string' }),
      outputSchema: s.output_schema ?? schema({ output: 'string' }),
      template: s.template,
      createdAt: created,
      updatedAt: created,
    };
  });
}

const MAX_CACHED_PAGES = 4096;

/** Indexes `flows` (in catalogue order) and caches their serialised bodies for `baseUrl`. */
export function createCatalogue(flows: readonly FlowRecord[], baseUrl: string): Catalogue {
  const byId = new Map<string, FlowRecord>();
  const itemJson = new Map<FlowRecord, string>();
  const details = new Map<FlowRecord, Buffer>();
  const lists = new Map<string, { all: FlowRecord[]; published: FlowRecord[]; draft: FlowRecord[] }>();
  const pages = new Map<string, Buffer>();
  for (const f of flows) {
    byId.set(f.id, f);
    let l = lists.get(f.account);
    if (l === undefined) lists.set(f.account, (l = { all: [], published: [], draft: [] }));
    l.all.push(f);
    l[f.status].push(f);
    itemJson.set(
      f,
      JSON.stringify({
        id: f.id,
        name: f.name,
        description: f.description,
        status: f.status,
        created_at: f.createdAt,
        updated_at: f.updatedAt,
        endpoint: `${baseUrl}/flows/${encodeURIComponent(f.id)}/run`,
      }),
    );
  }
  const empty: FlowRecord[] = [];
  return {
    get: (id) => byId.get(id),
    size: byId.size,
    listBody(account, status, limit, offset) {
      const key = `${account}\u0000${status}\u0000${limit}\u0000${offset}`;
      let body = pages.get(key);
      if (body !== undefined) return body;
      const all = lists.get(account)?.[status] ?? empty;
      const items = all.slice(offset, offset + limit).map((f) => itemJson.get(f) as string);
      body = Buffer.from(`{"flows":[${items.join(',')}],"total":${all.length},"limit":${limit},"offset":${offset}}`);
      // Pages are few in practice; a flood of distinct offsets just restarts the cache.
      if (pages.size >= MAX_CACHED_PAGES) pages.clear();
      pages.set(key, body);
      return body;
    },
    detailBody(flow) {
      let body = details.get(flow);
      if (body === undefined) {
        const config: Record<string, unknown> = { input_schema: flow.inputSchema, output_schema: flow.outputSchema };
        if (flow.template !== undefined) config.parser_template = flow.template;
        body = Buffer.from(
          JSON.stringify({
            id: flow.id,
            name: flow.name,
            description: flow.description,
            status: flow.status,
            config,
            created_at: flow.createdAt,
            updated_at: flow.updatedAt,
          }),
        );
        details.set(flow, body);
      }
      return body;
    },
  };
}
