import type { EnterpriseRole } from '../access/authenticated-user.js';

/**
 * A user's role in an enterprise (undefined: not a member): asked by the enterprise check when
 * the token's lookup did not answer it already. The authentication module provides it
 * (`MembershipService`), so the HTTP platform names no table of its own.
 */
export abstract class MembershipCheck {
  abstract roleOf(userId: string, enterpriseId: string): Promise<EnterpriseRole | undefined>;
}
