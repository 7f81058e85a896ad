/** Conversation sessions and their message history, kept in a bounded store. */
import type { Prng } from './prng.js';
import { createRecordStore, type RecordLimits, type SizedRecord } from './record-store.js';

/** A message of a session's history. */
export interface MessageRecord {
  readonly id: string;
  readonly role: 'user' | 'assistant';
  readonly content: string;
  readonly timestamp: string;
}

/** A session held by the service. */
export interface SessionRecord extends SizedRecord {
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
  /** What the store holds: sessions, their estimated bytes, and sessions forgotten to stay in bounds. */
  held(): { readonly records: number; readonly bytes: number; readonly forgotten: number };
}

/** The session body of the interface. */
export function sessionJson(s: SessionRecord): Record<string, unknown> {
  return { id: s.id, flow_id: s.flowId, user_id: s.userId, status: 'active', created_at: s.createdAt, metadata: s.metadata };
}

/**
 * Estimated fixed bytes of a session (object, id, timestamp, map entry) and of a message
 * (object, id, timestamp, its slot in the array); measured about 330 and 250, rounded up.
 * Text counts 2 bytes a character: V8 keeps any non-Latin-1 string at 2 bytes a character.
 */
export const SESSION_RECORD_BYTES = 400;
/** See `SESSION_RECORD_BYTES`. */
export const MESSAGE_RECORD_BYTES = 300;

const textBytes = (s: string): number => 2 * s.length;

/** Creates a store keeping sessions within `limits` (the oldest are forgotten). */
export function createSessionStore(prng: Prng, limits: RecordLimits): SessionStore {
  const sessions = createRecordStore<SessionRecord>(limits);
  return {
    create(account, flowId, userId, metadata, atMs) {
      // Metadata is the client's to size (up to the 1 MiB body cap): count it as its JSON.
      const bytes = SESSION_RECORD_BYTES + textBytes(userId) + textBytes(JSON.stringify(metadata));
      const s: SessionRecord = { id: `ses_${prng.hex(16)}`, account, flowId, userId, createdAt: new Date(atMs).toISOString(), metadata, messages: [], bytes };
      sessions.add(s);
      return s;
    },
    get: (id) => sessions.get(id),
    append(session, role, content, atMs) {
      session.messages.push({ id: `msg_${prng.hex(16)}`, role, content, timestamp: new Date(atMs).toISOString() });
      sessions.grew(session, MESSAGE_RECORD_BYTES + textBytes(content));
    },
    held: () => ({ records: sessions.size, bytes: sessions.bytes, forgotten: sessions.forgotten }),
  };
}
