/** Who a request acts for, once its bearer token resolved. */
export interface AuthenticatedUser {
  readonly id: string;
  readonly name: string;
  readonly email: string;
}
