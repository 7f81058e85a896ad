/**
 * The fixed body of the saturation servers: a `GET /v1/flows` page of about 4 KB, valid
 * against the client's schemas (so validation finds nothing and costs what it costs on a
 * healthy service), built deterministically so every server and every run serves the same bytes.
 */

const NAMES = [
  'Support Triage',
  'Invoice Extractor',
  'Meeting Summariser',
  'Lead Qualifier',
  'FAQ Assistant',
  'Sentiment Monitor',
  'Translation Helper',
  'Contract Reviewer',
  'Release Notes Writer',
  'Order Status Bot',
  'Resume Screener',
  'Incident Summariser',
] as const;

/** Serialised flow list of `count` flows (default 14, about 4.2 KB). */
export function flowListBody(count = 14, origin = 'https://api.example.com'): string {
  const flows = [];
  for (let i = 0; i < count; i++) {
    const id = `flow_${(0x5a17 + i * 7919).toString(16).padStart(8, '0')}`;
    const day = String(1 + (i % 28)).padStart(2, '0');
    flows.push({
      id,
      name: NAMES[i % NAMES.length] as string,
      description: `${NAMES[i % NAMES.length] as string}: a published flow of the benchmark catalogue, number ${i + 1}.`,
      status: 'published',
      created_at: `2026-01-${day}T09:30:00Z`,
      updated_at: `2026-02-${day}T16:45:00Z`,
      endpoint: `${origin}/v1/flows/${id}/run`,
    });
  }
  return JSON.stringify({ flows, total: count, limit: 20, offset: 0 });
}

/** Headers every saturation server sends with the body (nginx is configured to match). */
export const FLOW_LIST_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-type': 'application/json',
  'x-ratelimit-limit': '1000000000',
  'x-ratelimit-remaining': '999999999',
  'x-ratelimit-reset': '60',
});
