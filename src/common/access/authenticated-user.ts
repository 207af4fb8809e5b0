/** What a member may do in an enterprise: `admin` also manages its webhook endpoints. */
export type EnterpriseRole = 'admin' | 'member';

/** A token's limits; absent on a token with full access (every login token). */
export interface TokenScope {
  /** What it may do; null: everything its user may. */
  readonly abilities: readonly string[] | null;
  /** The enterprises it may act for (lower-case ids); null: every enterprise of its user. */
  readonly enterprises: readonly string[] | null;
}

/** Who a request acts for, once its bearer token resolved. */
export interface AuthenticatedUser {
  readonly id: string;
  readonly name: string;
  readonly email: string;
  /** The id of the token the request came with (logout revokes exactly that one). */
  readonly tokenId: string;
  /**
   * Whether the user belongs to the enterprise of the request's header, and as what, when the
   * token lookup checked it.
   */
  readonly membership?: { readonly enterpriseId: string; readonly member: boolean; readonly role?: EnterpriseRole };
  /** Present only when the token is limited. */
  readonly scope?: TokenScope;
}
