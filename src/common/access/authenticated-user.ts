/** Who a request acts for, once its bearer token resolved. */
export interface AuthenticatedUser {
  readonly id: string;
  readonly name: string;
  readonly email: string;
  /** The id of the token the request came with (logout revokes exactly that one). */
  readonly tokenId: string;
  /** Whether the user belongs to the enterprise of the request's header, when the token lookup checked it. */
  readonly membership?: { readonly enterpriseId: string; readonly member: boolean };
}
