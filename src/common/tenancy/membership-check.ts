/**
 * Whether a user belongs to an enterprise: asked by the enterprise check when the token's lookup
 * did not answer it already. The authentication module provides it (`MembershipService`), so
 * the HTTP platform names no table of its own.
 */
export abstract class MembershipCheck {
  abstract isMember(userId: string, enterpriseId: string): Promise<boolean>;
}
