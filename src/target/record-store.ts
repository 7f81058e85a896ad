/**
 * The bounded store behind run and session reads: records by id, oldest forgotten first once
 * either the count or the estimated bytes pass their limit. A load test writes records much
 * faster than anyone reads old ones, so without both limits a long run against the embedded
 * service grows without end (a session's size is the client's to choose).
 */

/** A record that knows roughly how much memory it holds. */
export interface SizedRecord {
  readonly id: string;
  /** Estimated bytes of the record, kept up to date through `RecordStore.grew`. */
  bytes: number;
}

/** Limits of a store. */
export interface RecordLimits {
  /** Most records kept. */
  readonly maxRecords: number;
  /** Most estimated bytes kept. */
  readonly maxBytes: number;
}

/** Records by id under a count and a byte budget. */
export interface RecordStore<R extends SizedRecord> {
  /** Adds a record as the newest, forgetting the oldest while over a limit. */
  add(record: R): void;
  get(id: string): R | undefined;
  /** Accounts `extraBytes` more for a record (its `bytes` grows too); may forget the oldest. */
  grew(record: R, extraBytes: number): void;
  /** Records held. */
  readonly size: number;
  /** Estimated bytes held. */
  readonly bytes: number;
  /** Records forgotten so far to stay within the limits. */
  readonly forgotten: number;
}

/** Creates an empty store. A record bigger than the whole budget is forgotten at once. */
export function createRecordStore<R extends SizedRecord>(limits: RecordLimits): RecordStore<R> {
  // A Map iterates in insertion order, so its first key is always the oldest record.
  const records = new Map<string, R>();
  let bytes = 0;
  let forgotten = 0;

  const trim = (): void => {
    while (records.size > limits.maxRecords || (bytes > limits.maxBytes && records.size > 0)) {
      const oldest = records.values().next();
      if (oldest.done === true) return;
      records.delete(oldest.value.id);
      bytes -= oldest.value.bytes;
      forgotten++;
    }
  };

  return {
    add(record) {
      const previous = records.get(record.id);
      if (previous !== undefined) {
        records.delete(record.id);
        bytes -= previous.bytes;
      }
      records.set(record.id, record);
      bytes += record.bytes;
      trim();
    },
    get: (id) => records.get(id),
    grew(record, extraBytes) {
      record.bytes += extraBytes;
      // A record already forgotten still grows (its run goes on) but no longer counts here.
      if (records.get(record.id) !== record) return;
      bytes += extraBytes;
      trim();
    },
    get size() {
      return records.size;
    },
    get bytes() {
      return bytes;
    },
    get forgotten() {
      return forgotten;
    },
  };
}
