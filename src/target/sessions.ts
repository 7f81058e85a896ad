/** Conversation sessions and their message history. */
import type { Prng } from './prng.js';

/** A message of a session's history. */
export interface MessageRecord {
  readonly id: string;
  readonly role: 'user' | 'assistant';
  readonly content: string;
  readonly timestamp: string;
}

/** A session held by the service. */
export interface SessionRecord {
  readonly id: string;
  readonly account: string;
  readonly flowId: string;
  readonly userId: string;
  readonly createdAt: string;
  readonly metadata: Readonly<Record<string, unknown>>;
  readonly messages: MessageRecord[];
}

/** Creates and finds sessions. */
export interface SessionStore {
  create(account: string, flowId: string, userId: string, metadata: Record<string, unknown>, atMs: number): SessionRecord;
  get(id: string): SessionRecord | undefined;
  append(session: SessionRecord, role: 'user' | 'assistant', content: string, atMs: number): void;
}

/** The session body of the interface. */
export function sessionJson(s: SessionRecord): Record<string, unknown> {
  return { id: s.id, flow_id: s.flowId, user_id: s.userId, status: 'active', created_at: s.createdAt, metadata: s.metadata };
}

/** Creates a store keeping at most `maxRecords` sessions (the oldest are forgotten). */
export function createSessionStore(prng: Prng, maxRecords: number): SessionStore {
  const sessions = new Map<string, SessionRecord>();
  return {
    create(account, flowId, userId, metadata, atMs) {
      const s: SessionRecord = { id: `ses_${prng.hex(16)}`, account, flowId, userId, createdAt: new Date(atMs).toISOString(), metadata, messages: [] };
      if (sessions.size >= maxRecords) {
        const oldest = sessions.keys().next();
        if (oldest.done !== true) sessions.delete(oldest.value);
      }
      sessions.set(s.id, s);
      return s;
    },
    get: (id) => sessions.get(id),
    append(session, role, content, atMs) {
      session.messages.push({ id: `msg_${prng.hex(16)}`, role, content, timestamp: new Date(atMs).toISOString() });
    },
  };
}
