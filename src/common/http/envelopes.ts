/** `{data: record}` or `{data: [records]}` (unpaginated, R8). */
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

/** `{data, links, meta}` of a paginated list (R7). */
export class PageEnvelope<T> {
  constructor(
    readonly data: T[],
    readonly links: PageLinks,
    readonly meta: PageMeta,
  ) {}
}

/** The login answer: `{user, access_token}`; only `user` is cased in v1 (R2). */
export class LoginEnvelope<T> {
  constructor(
    readonly user: T,
    readonly access_token: string,
  ) {}
}
