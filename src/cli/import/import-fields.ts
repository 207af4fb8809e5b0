import { z } from 'zod';

/** The value types of the import format, shared by the hand-written and the entity-derived sections. */

/** Any 8-4-4-4-12 hex id, as PostgreSQL's uuid type takes it; kept lower-case like the database. */
export const id = z.guid().transform((value) => value.toLowerCase());
export const text = z.string();
/**
 * A string of at most `max` characters counted as code points, as PostgreSQL's varchar(n) counts
 * them (zod's own max counts UTF-16 units, so it would refuse 255 emoji the column holds).
 */
export const chars = (max: number, { required = false } = {}) =>
  z.string().superRefine((value, ctx) => {
    if (required && value.length === 0) ctx.addIssue({ code: 'custom', message: 'must not be empty' });
    // A string is never more code points than UTF-16 units: count them only when it could be too long.
    else if (value.length > max && [...value].length > max) {
      ctx.addIssue({ code: 'custom', message: `must not be greater than ${max} characters` });
    }
  });
export const optionalText = (max = 255) => chars(max).nullable().default(null);
export const optionalDate = z.iso.date().nullable().default(null);
export const timestamp = z.iso.datetime({ offset: true }).optional();
export const flag = z
  .union([z.boolean(), z.literal(0), z.literal(1)], { error: 'must be true or false' })
  .transform(Boolean);
export const money = z
  .union([z.string(), z.number()], { error: 'must be a decimal amount' })
  .transform((value) => String(value).trim())
  .refine((value) => /^-?\d{1,12}(\.\d{1,2})?$/.test(value), 'must be a decimal amount with at most two places');
export const count = z.int().min(0).nullable().default(null);
/** A lead's mixed-typed input: any JSON scalar or null, kept with its type. */
export const scalar = z
  .union([z.string(), z.number(), z.boolean(), z.null()], { error: 'must be a string, number, boolean or null' })
  .default(null);

export const timestamps = { created_at: timestamp, updated_at: timestamp };
