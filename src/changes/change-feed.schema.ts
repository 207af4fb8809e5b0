import type { Type } from '@nestjs/common';
import { ApiExtraModels, ApiProperty, getSchemaPath } from '@nestjs/swagger';
import { NamedSchema } from '../openapi/record-schema.decorator.js';
import { schemaOf } from '../openapi/resource-schemas.js';
import { TimestampField, UuidField } from '../openapi/schema-properties.js';
import { resourceOfType } from '../resources/tenant-resources.js';
import { CHANGE_ACTIONS, CHANGE_TYPES, MAX_CHANGE_LIMIT, type ChangeType } from './change-types.js';

/** Entry schema names: `PersonChange` for the `person` type. */
const entryName = (type: ChangeType): string => `${type[0]?.toUpperCase() ?? ''}${type.slice(1)}Change`;

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

const ENTRIES = CHANGE_TYPES.map((type) => entrySchema(type, schemaOf(resourceOfType(type)), entryName(type)));

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
