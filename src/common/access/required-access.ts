import { SetMetadata } from '@nestjs/common';

export const REQUIRED_ABILITY = 'finance-intake:required-ability';
export const ADMIN_ONLY = 'finance-intake:admin-only';

/**
 * What a scoped token needs for a route. GET routes need `read` unless they say otherwise;
 * any other route must say (a write route that does not is closed to scoped tokens, so a new
 * route never opens to them by accident).
 */
export type RequiredAbility =
  /** A named ability: `read`, `changes:read`, `webhooks:manage`, `audit:read`, `<resource>:write`. */
  | { readonly kind: 'ability'; readonly ability: string }
  /** Every valid token (logout; routes that only ever answer 405). */
  | { readonly kind: 'any' }
  /** Only a token without abilities (full access). */
  | { readonly kind: 'unscoped' };

/** The ability a scoped token needs for this route (class or method). */
export const RequiresAbility = (ability: string): ClassDecorator & MethodDecorator =>
  SetMetadata(REQUIRED_ABILITY, { kind: 'ability', ability } satisfies RequiredAbility);

/** Any valid token may call this route, whatever its abilities. */
export const AnyTokenAbility = (): ClassDecorator & MethodDecorator =>
  SetMetadata(REQUIRED_ABILITY, { kind: 'any' } satisfies RequiredAbility);

/** Only an admin of the header's enterprise may call this route (class or method). */
export const AdminOnly = (): ClassDecorator & MethodDecorator => SetMetadata(ADMIN_ONLY, true);

/** What the 403 says a token or member cannot do. */
export function abilityWords(required: RequiredAbility): string {
  if (required.kind !== 'ability') return 'use this route';
  switch (required.ability) {
    case 'read':
      return 'read records';
    case 'changes:read':
      return 'read the change feed';
    case 'webhooks:manage':
      return 'manage webhook endpoints';
    case 'audit:read':
      return 'read the audit trail';
    case 'tokens:manage':
      return "manage the enterprise's tokens";
    default:
      return required.ability.endsWith(':write')
        ? `write ${required.ability.slice(0, -':write'.length)}`
        : required.ability;
  }
}

export const AccessMessages = {
  tokenCannot: (required: RequiredAbility): string => `This token cannot ${abilityWords(required)}.`,
  tokenNotForEnterprise: 'This token cannot act for this enterprise.',
  adminOnly: (required: RequiredAbility): string => `Only an admin of this enterprise can ${abilityWords(required)}.`,
} as const;
