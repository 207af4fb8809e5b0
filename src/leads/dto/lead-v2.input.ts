import {
  IsEmailAddress,
  IsScalar,
  IsStorable,
  IsText,
  MaxChars,
  Required,
  RequiredWithout,
} from '../../writes/write-rules.js';
import { MIXED_COLUMNS, NAME_MAX_CHARS, TEXT_COLUMNS } from '../lead-fields.js';

/**
 * The v2 lead body, after key normalisation. Values are unknown until
 * validated; the pipe copies only these fields in, so every other key is dropped.
 */
export class LeadInputV2 {
  @Required() @IsText() @MaxChars(NAME_MAX_CHARS) @IsStorable() title?: unknown;
  @RequiredWithout('person_name') @IsText() @MaxChars(NAME_MAX_CHARS) @IsStorable() person?: unknown;
  @RequiredWithout('person') @IsText() @MaxChars(NAME_MAX_CHARS) @IsStorable() person_name?: unknown;
  @IsScalar() @IsStorable() person_id?: unknown;
  @IsText() @MaxChars(NAME_MAX_CHARS) @IsStorable() organisation?: unknown;
  @IsText() @MaxChars(NAME_MAX_CHARS) @IsStorable() organisation_name?: unknown;
  @IsScalar() @IsStorable() organisation_id?: unknown;
  @IsScalar() @IsStorable() has_abn?: unknown;
  @IsText() @IsStorable() abn?: unknown;
  @IsText() @IsStorable() description?: unknown;
  @IsScalar() @IsStorable() user_assigned_id?: unknown;
  @IsText() @IsStorable() use?: unknown;
  @IsText() @IsStorable() asset_description?: unknown;
  @IsScalar() @IsStorable() purchase_price?: unknown;
  @IsScalar() @IsStorable() deposit?: unknown;
  @IsScalar() @IsStorable() trade_in?: unknown;
  @IsScalar() @IsStorable() finance_amount?: unknown;
  @IsScalar() @IsStorable() residual?: unknown;
  @IsScalar() @IsStorable() finance_term?: unknown;
  @IsText() @IsStorable() funds_required_within?: unknown;
  @IsScalar() @IsStorable() realestate_owner?: unknown;
  @IsScalar() @IsStorable() finance_last_3_years?: unknown;
  @IsScalar() @IsStorable() applied_already?: unknown;
  @IsScalar() @IsStorable() broker_id?: unknown;
  @IsText() @IsStorable() phone?: unknown;
  @IsText() @IsStorable() phone_type?: unknown;
  @IsText() @IsEmailAddress() @IsStorable() email?: unknown;
  @IsText() @IsStorable() email_type?: unknown;
  @IsText() @IsStorable() source?: unknown;
  /** Filled from the enterprise header before validation; the client need not send it. */
  @Required() team?: unknown;
}

/** The body fields v2 reads (everything else is dropped); `team` comes from the header. */
export const V2_FIELDS: readonly string[] = [...TEXT_COLUMNS, ...MIXED_COLUMNS, 'person', 'organisation'];
