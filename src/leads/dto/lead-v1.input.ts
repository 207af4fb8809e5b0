import { IsText, MaxChars, Required } from '../../writes/write-rules.js';
import { NAME_MAX_CHARS } from '../lead-fields.js';

/**
 * v1's small rule set: a title (`Title` or `title`) and a person (`PersonName`
 * or `person`), the PascalCase key winning. Errors are reported under `Title` and `PersonName`.
 * Whether text is storable is checked over the whole body (v1/lead-input.pipe.ts).
 */
export class LeadInputV1 {
  @Required() @IsText() @MaxChars(NAME_MAX_CHARS) Title?: unknown;
  @Required() @IsText() @MaxChars(NAME_MAX_CHARS) PersonName?: unknown;
}
