import { describe, expect, it } from '@jest/globals';
import { ResourceValidationException } from '../../src/common/http/validation-failed.exception.js';
import { v2InputPipe } from '../../src/writes/v2-input.js';
import { IsDateTime, IsRecordId, IsText, Required } from '../../src/writes/write-rules.js';

class VisitInput {
  @Required() @IsRecordId() person_id?: unknown;
  @Required() @IsText() title?: unknown;
  @IsDateTime() starts_at?: unknown;
}

/** The errors a body is refused with, or the values it gave. */
function outcome(body: unknown): unknown {
  const pipe = new (v2InputPipe(VisitInput))();
  try {
    return pipe.transform({ body, enterpriseId: '6f1c2f9e-8d4b-4c44-9a52-0b0d5f1e2a01' }, { type: 'custom' });
  } catch (error) {
    if (error instanceof ResourceValidationException) return error.errors;
    throw error;
  }
}

describe('v2InputPipe', () => {
  const person = '6f1c2f9e-8d4b-4c44-9a52-0b0d5f1e2a02';

  it("keeps the input class's fields the body sent, blank text as null, and drops every other key", () => {
    expect(
      outcome({ person_id: person, title: 'Review', starts_at: ' ', colour: 'red', enterprise_id: person }),
    ).toEqual({
      person_id: person,
      title: 'Review',
      starts_at: null,
    });
  });

  it("answers every field's messages at once, by field", () => {
    expect(outcome({ person_id: 'not-an-id', starts_at: 'tomorrow' })).toEqual({
      person_id: ['The person id field must be a valid UUID.'],
      title: ['The title field is required.'],
      starts_at: ['The starts at field must be a valid date and time with its offset.'],
    });
  });

  it('counts a body that is not an object as an empty one', () => {
    expect(outcome(['person_id'])).toEqual({
      person_id: ['The person id field is required.'],
      title: ['The title field is required.'],
    });
  });
});
