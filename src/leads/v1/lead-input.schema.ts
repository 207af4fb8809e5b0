import { validationSchema, type JsonSchema } from '../../openapi/validation-schema.js';
import { LeadInputV1 } from '../dto/lead-v1.input.js';
import { MIXED_COLUMNS } from '../lead-fields.js';
import { DIRECT_TEXT, PAIRS } from './lead-input.pipe.js';

const SCALAR = { type: ['string', 'number', 'boolean', 'null'] };
const TEXT = { type: ['string', 'null'] };

/**
 * The v1 lead body, from the same rules and key lists the v1 pipe uses:
 * `LeadInputV1` validates the winning key of the title and person pairs; the other keys fill
 * their column when the value fits it and are kept as extra input otherwise.
 */
export function leadInputV1Schema(): JsonSchema {
  const validated = validationSchema(LeadInputV1, { title: 'LeadInputV1Rules' });
  const validatedProperties = validated.properties as Record<string, JsonSchema>;
  const properties: Record<string, JsonSchema> = {};
  const alternatives: JsonSchema[] = [];
  for (const { keys } of PAIRS) {
    const [pascal, other] = keys;
    const rules = validatedProperties[pascal];
    // Either key may be null or blank as long as the other one carries the value.
    const schema = rules ? { ...rules, type: ['string', 'null'] } : TEXT;
    properties[pascal] = schema;
    properties[other] = schema;
    if ((validated.required as string[] | undefined)?.includes(pascal)) {
      // Shapes a client generator can type: an object that has one key, or the other.
      const present = (key: string): JsonSchema => ({
        type: 'object',
        properties: { [key]: { ...rules, type: 'string', pattern: '\\S' } },
        required: [key],
      });
      alternatives.push({ anyOf: [present(pascal), present(other)] });
    }
  }
  for (const column of DIRECT_TEXT) properties[column] = TEXT;
  for (const column of MIXED_COLUMNS) properties[column] = SCALAR;
  return {
    title: 'LeadInputV1',
    description:
      'Required: a title (`Title` or `title`) and a person (`PersonName` or `person`), at most 255 characters; ' +
      'the PascalCase key wins when both carry a value. `team` is the `EnterpriseID` header. Keys are not ' +
      'normalised. Every other key, and a value of another type than its column takes, is stored as it was ' +
      'sent: nothing a v1 client sends is lost.',
    allOf: [{ type: 'object', properties, additionalProperties: true }, ...alternatives],
  };
}
