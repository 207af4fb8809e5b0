import { validationSchema, type JsonSchema } from '../../openapi/validation-schema.js';
import { LeadInputV2 } from '../dto/lead-v2.input.js';

/** The v2 lead body: the rules of `LeadInputV2`, which the v2 pipe validates with. */
export function leadInputV2Schema(): JsonSchema {
  return validationSchema(LeadInputV2, {
    title: 'LeadInput',
    description:
      'Keys in any casing are accepted and snake-cased first (`PersonName`, `personName` -> `person_name`). ' +
      'Keys outside this list are dropped. `team` is the `X-Enterprise-Id` header. Blank strings count ' +
      'as absent. Mixed-typed fields take any JSON scalar and keep its type. On update, absent fields stay unchanged ' +
      'but the same fields are required.',
    nullable: true,
    omit: ['team'],
    additionalProperties: true,
  });
}
