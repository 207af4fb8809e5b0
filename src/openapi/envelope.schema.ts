import type { Type } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import type { PageLinks, PageMeta } from '../common/http/envelopes.js';
import { PAGE_SIZE } from '../common/http/pagination.js';
import { NamedSchema, schemaNameOf } from './record-schema.decorator.js';
import { IntegerField } from './schema-properties.js';

const PAGE_URL = { type: 'string', format: 'uri', example: 'https://api.example.com/api/v2/leads?page=1' } as const;

@NamedSchema('PageLinks', 'Absolute URLs of the pages around this one.')
export class PageLinksSchema implements PageLinks {
  @ApiProperty(PAGE_URL) first!: string;
  @ApiProperty(PAGE_URL) last!: string;
  @ApiProperty({ ...PAGE_URL, nullable: true, description: 'null on page 1' }) prev!: string | null;
  @ApiProperty({ ...PAGE_URL, nullable: true, description: 'null on the last page and past it' }) next!: string | null;
}

@NamedSchema('PageMeta', 'Where this page sits in the whole list.')
export class PageMetaSchema implements PageMeta {
  @IntegerField({ minimum: 1, description: 'The page asked for' }) current_page!: number;
  @IntegerField({ minimum: 1, nullable: true, description: 'null when the page is empty' }) from!: number | null;
  @IntegerField({ minimum: 1, nullable: true, description: 'null when the page is empty' }) to!: number | null;
  @IntegerField({ minimum: 1 }) last_page!: number;
  @ApiProperty({ type: 'string', format: 'uri', description: 'The list URL without query' }) path!: string;
  @ApiProperty({ type: 'integer', enum: [PAGE_SIZE], description: 'Always 100' }) per_page!: number;
  @IntegerField({ minimum: 0 }) total!: number;
}

const envelopes = new Map<string, Type>();

function memo(name: string, make: () => Type): Type {
  let type = envelopes.get(name);
  if (type === undefined) {
    type = make();
    envelopes.set(name, type);
  }
  return type;
}

/** `{data: record}`: a single-record response. */
export function DataOf(record: Type): Type {
  const name = `${schemaNameOf(record)}Data`;
  return memo(name, () => {
    @NamedSchema(name, `One ${schemaNameOf(record)} record.`)
    class Data {
      @ApiProperty({ type: () => record }) data!: unknown;
    }
    return Data;
  });
}

/** `{data: [records]}`: an unpaginated list, or a nested collection of rows. */
export function ListOf(record: Type): Type {
  const name = `${schemaNameOf(record)}List`;
  return memo(name, () => {
    @NamedSchema(name, `${schemaNameOf(record)} records, unpaginated.`)
    class List {
      @ApiProperty({ type: () => record, isArray: true }) data!: unknown[];
    }
    return List;
  });
}

/** `{data, links, meta}`: one page of a paginated list. */
export function PageOf(record: Type): Type {
  const name = `${schemaNameOf(record)}Page`;
  return memo(name, () => {
    @NamedSchema(name, `A page of ${schemaNameOf(record)} records: at most ${PAGE_SIZE}, newest first.`)
    class Page {
      @ApiProperty({ type: () => record, isArray: true, maxItems: PAGE_SIZE }) data!: unknown[];
      @ApiProperty({ type: () => PageLinksSchema }) links!: PageLinksSchema;
      @ApiProperty({ type: () => PageMetaSchema }) meta!: PageMetaSchema;
    }
    return Page;
  });
}
