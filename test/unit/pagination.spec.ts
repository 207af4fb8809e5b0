import { describe, expect, it } from '@jest/globals';
import { pageEnvelope, pageRequest, parsePage, PAGE_SIZE } from '../../src/common/http/pagination.js';

const PATH = 'https://api.example.com/api/v2/people';

describe('pagination', () => {
  it.each([
    [undefined, 1],
    ['', 1],
    ['abc', 1],
    ['0', 1],
    ['-3', 1],
    ['2.5', 1],
    ['1', 1],
    ['3', 3],
    ['0007', 7],
    ['99999999999', 1],
  ])('page %j means %i', (value, page) => {
    expect(parsePage(value)).toBe(page);
  });

  it('asks the database for 100 rows after (page - 1) * 100', () => {
    expect(pageRequest(3)).toEqual({ page: 3, limit: PAGE_SIZE, offset: 200 });
  });

  it('describes page 2 of 250 records', () => {
    const envelope = pageEnvelope(
      Array.from({ length: 100 }, (_, i) => i),
      250,
      2,
      PATH,
    );
    expect({ links: envelope.links, meta: envelope.meta }).toEqual({
      links: { first: `${PATH}?page=1`, last: `${PATH}?page=3`, prev: `${PATH}?page=1`, next: `${PATH}?page=3` },
      meta: { current_page: 2, from: 101, to: 200, last_page: 3, path: PATH, per_page: 100, total: 250 },
    });
  });

  it('describes the last, partial page', () => {
    const envelope = pageEnvelope(
      Array.from({ length: 50 }, (_, i) => i),
      250,
      3,
      PATH,
    );
    expect(envelope.links).toEqual({
      first: `${PATH}?page=1`,
      last: `${PATH}?page=3`,
      prev: `${PATH}?page=2`,
      next: null,
    });
    expect(envelope.meta).toMatchObject({ from: 201, to: 250 });
  });

  it('describes a page past the end as empty, pointing back', () => {
    const envelope = pageEnvelope([], 250, 9, PATH);
    expect(envelope.data).toEqual([]);
    expect(envelope.links).toEqual({
      first: `${PATH}?page=1`,
      last: `${PATH}?page=3`,
      prev: `${PATH}?page=8`,
      next: null,
    });
    expect(envelope.meta).toEqual({
      current_page: 9,
      from: null,
      to: null,
      last_page: 3,
      path: PATH,
      per_page: 100,
      total: 250,
    });
  });

  it('describes an empty list with last_page 1', () => {
    const envelope = pageEnvelope([], 0, 1, PATH);
    expect(envelope.links).toEqual({ first: `${PATH}?page=1`, last: `${PATH}?page=1`, prev: null, next: null });
    expect(envelope.meta).toEqual({
      current_page: 1,
      from: null,
      to: null,
      last_page: 1,
      path: PATH,
      per_page: 100,
      total: 0,
    });
  });

  it('serialises to exactly data, links and meta with the seven meta keys', () => {
    const json = JSON.parse(JSON.stringify(pageEnvelope([{ id: 'a' }], 1, 1, PATH))) as Record<
      string,
      Record<string, unknown>
    >;
    expect(Object.keys(json)).toEqual(['data', 'links', 'meta']);
    expect(Object.keys(json.meta ?? {})).toEqual([
      'current_page',
      'from',
      'to',
      'last_page',
      'path',
      'per_page',
      'total',
    ]);
  });
});
