/** `{data: record}` or `{data: [records]}` (unpaginated). */
export class DataEnvelope<T> {
  constructor(readonly data: T) {}
}

export interface PageLinks {
  first: string;
  last: string;
  prev: string | null;
  next: string | null;
}

export interface PageMeta {
  current_page: number;
  from: number | null;
  to: number | null;
  last_page: number;
  path: string;
  per_page: number;
  total: number;
}

/** `{data, links, meta}` of a paginated list. */
export class PageEnvelope<T> {
  constructor(
    readonly data: T[],
    readonly links: PageLinks,
    readonly meta: PageMeta,
  ) {}
}

/** The login answer: `{user, access_token}`; only `user` is cased in v1. */
export class LoginEnvelope<T> {
  constructor(
    readonly user: T,
    readonly access_token: string,
  ) {}
}

/** A page of the change feed: `{data: [entries], links: {next}, meta: {next_cursor, has_more}}`. */
export class ChangeFeedEnvelope<T = unknown> {
  constructor(
    readonly data: { type: string; id: string; action: string; changed_at: string; record: T | null }[],
    readonly links: { next: string },
    readonly meta: { next_cursor: string; has_more: boolean },
  ) {}
}

/** `{data: {cursor}}`: a position in the change feed, not a record; the same in both versions. */
export class CursorEnvelope {
  constructor(readonly data: { cursor: string }) {}
}

/**
 * A record answered as it is, not in `data` (v1's lead update): serialised as the record, and
 * marked so the v1 casing step knows it holds one.
 */
export class BareRecord<T> {
  constructor(readonly record: T) {}

  toJSON(): T {
    return this.record;
  }
}
