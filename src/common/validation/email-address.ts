import { isEmail } from 'class-validator';

/**
 * class-validator's email check that never throws: validator.js decodes parts of the address
 * with decodeURI, which throws `URI malformed` on an unpaired surrogate, so a hostile body
 * became a 500 (found by the fuzz suite, issue 10). Such text is simply not an email address.
 */
export function isEmailAddress(value: string): boolean {
  try {
    return isEmail(value);
  } catch {
    return false;
  }
}
