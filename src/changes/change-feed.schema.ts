import type { Type } from '@nestjs/common';
import { ApiExtraModels, ApiProperty, getSchemaPath } from '@nestjs/swagger';
import { ApplicationSchema } from '../applications/application.schema.js';
import { LeadSchema } from '../leads/lead.schema.js';
import { OrganisationSchema } from '../organisations/organisation.schema.js';
import { NamedSchema } from '../openapi/record-schema.decorator.js';
import { TimestampField, UuidField } from '../openapi/schema-properties.js';
import { PersonSchema } from '../people/person.schema.js';
import { QuoteSchema } from '../quotes/quote.schema.js';
import { UserSchema } from '../users/user.schema.js';
import { CHANGE_ACTIONS, MAX_CHANGE_LIMIT, type ChangeType } from './change-types.js';

const RECORDS: Record<ChangeType, { schema: Type; name: string }> = {
  person: { schema: PersonSchema, name: 'PersonChange' },
  organisation: { schema: OrganisationSchema, name: 'OrganisationChange' },
  application: { schema: ApplicationSchema, name: 'ApplicationChange' },
  quote: { schema: QuoteSchema, name: 'QuoteChange' },
  lead: { schema: LeadSchema, name: 'LeadChange' },
  user: { schema: UserSchema, name: 'UserChange' },
};

function entrySchema(type: ChangeType, record: Type, name: string): Type {
  @NamedSchema(name, `A change of a ${type}. The entry's own keys are the same in both versions.`)
  class Entry {
    @ApiProperty({ type: 'string', enum: [type] }) type!: string;
    @UuidField({ description: `The ${type}'s id` }) id!: string;
    @ApiProperty({
      type: 'string',
      enum: CHANGE_ACTIONS,
      description: '`upserted`: created or changed; `removed`: deleted, or no longer in this enterprise.',
    })
    action!: string;
    @TimestampField({ description: 'When the latest change of the record was made' }) changed_at!: string;
    @ApiProperty({
      type: () => record,
      nullable: true,
      description: `The ${type} exactly as its retrieve answers it in this version; null when removed.`,
    })
    record!: unknown;
  }
  return Entry;
}

const ENTRIES = Object.entries(RECORDS).map(([type, { schema, name }]) =>
  entrySchema(type as ChangeType, schema, name),
);

@NamedSchema('ChangeLinks', 'Where to read on.')
export class ChangeLinksSchema {
  @ApiProperty({
    type: 'string',
    format: 'uri',
    description: 'This feed from `meta.next_cursor`, with the same `types` and `limit`.',
  })
  next!: string;
}

@NamedSchema('ChangeMeta', 'Where this page ends.')
export class ChangeMetaSchema {
  @ApiProperty({ type: 'string', description: 'Store it and send it back as `cursor` to read on from here.' })
  next_cursor!: string;
  @ApiProperty({ type: 'boolean', description: 'True when more changes can be read at once.' })
  has_more!: boolean;
}

@ApiExtraModels(...ENTRIES)
@NamedSchema('ChangePage', 'Changes of the enterprise, oldest first, each record once with its latest state.')
export class ChangePageSchema {
  @ApiProperty({
    type: 'array',
    maxItems: MAX_CHANGE_LIMIT,
    items: { oneOf: ENTRIES.map((entry) => ({ $ref: getSchemaPath(entry) })) },
  })
  data!: unknown[];
  @ApiProperty({ type: () => ChangeLinksSchema }) links!: ChangeLinksSchema;
  @ApiProperty({ type: () => ChangeMetaSchema }) meta!: ChangeMetaSchema;
}

@NamedSchema('ChangeCursor', 'A position in the change feed.')
export class ChangeCursorSchema {
  @ApiProperty({ type: 'string', description: 'Send it as `cursor` to read the changes made after now.' })
  cursor!: string;
}

@NamedSchema('ChangeCursorData', 'The position of the change feed now.')
export class ChangeCursorDataSchema {
  @ApiProperty({ type: () => ChangeCursorSchema }) data!: ChangeCursorSchema;
}
