/** What the change feed lists: the records of an enterprise, by the type names of its entries. */
export const CHANGE_TYPES = ['person', 'organisation', 'application', 'quote', 'lead', 'user'] as const;
export type ChangeType = (typeof CHANGE_TYPES)[number];

export const CHANGE_ACTIONS = ['upserted', 'removed'] as const;
export type ChangeAction = (typeof CHANGE_ACTIONS)[number];

/** A position in an enterprise's change log: entries after (xid, seq) come next. */
export interface ChangePosition {
  /** Transaction id (xid8) as a decimal string. */
  readonly xid: bigint;
  readonly seq: bigint;
}

/** Before the first entry of any log. */
export const BEGINNING: ChangePosition = { xid: 0n, seq: 0n };

export const DEFAULT_CHANGE_LIMIT = 100;
export const MAX_CHANGE_LIMIT = 500;

/** One entry of the feed: `record` is what the record's own retrieve answers, null when removed. */
export interface ChangeEntry<T = unknown> {
  type: ChangeType;
  id: string;
  action: ChangeAction;
  changed_at: string;
  record: T | null;
}
