/** Bodies that satisfy the interface, for the client tests. */
export const TS = '2026-01-01T00:00:00Z';
export const TOKEN = 'sk-test-SECRET-9f8e7d6c5b4a';

export const usage = { total_tokens: 30, prompt_tokens: 10, completion_tokens: 20 };

export const run = {
  id: 'run_1',
  flow_id: 'flow_1',
  status: 'completed',
  output: 'hello',
  created_at: TS,
  completed_at: TS,
  usage,
};

export const runStatus = {
  id: 'run_1',
  flow_id: 'flow_1',
  status: 'running',
  progress: 40,
  output: 'hel',
  error: null,
  created_at: TS,
};

export function flowItem(i: number): Record<string, unknown> {
  return {
    id: `flow_${i}`,
    name: `Flow ${i}`,
    description: 'd',
    status: 'published',
    created_at: TS,
    updated_at: TS,
    endpoint: `https://api.example.test/v1/flows/flow_${i}/run`,
  };
}

export const flow = {
  id: 'flow_1',
  name: 'Flow 1',
  description: 'd',
  status: 'draft',
  created_at: TS,
  updated_at: TS,
  config: {
    input_schema: { type: 'object', properties: { message: { type: 'string' } } },
    output_schema: { type: 'object', properties: { reply: { type: 'string' } } },
  },
};

export const session = {
  id: 'sess_1',
  flow_id: 'flow_1',
  user_id: 'u1',
  status: 'active',
  created_at: TS,
  metadata: { plan: 'pro' },
};

export const history = {
  session_id: 'sess_1',
  messages: [
    { id: 'm1', role: 'user', content: 'hi', timestamp: TS },
    { id: 'm2', role: 'assistant', content: 'hello', timestamp: TS },
  ],
  total: 2,
};

export const usageStats = {
  period: { start: TS, end: TS },
  metrics: { total_runs: 10, successful_runs: 9, failed_runs: 1, total_tokens: 300, avg_response_time: 1.5, cost: 0.02 },
  daily_breakdown: [{ date: '2026-01-01', runs: 10, tokens: 300, cost: 0.02 }],
};

export const triggerAck = { message: 'Task started in the background', status: 'in progress' };

export function errorBody(code: string, message = 'boom', details?: Record<string, unknown>): Record<string, unknown> {
  return { error: { code, message, ...(details === undefined ? {} : { details }) }, request_id: `req_${code}` };
}
