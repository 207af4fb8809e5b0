/**
 * The keys whose v1 name the API contract spells with `ID`. The rule for every other key, a new
 * resource's included, is the plain one: each `_` part capitalised, so a `_id` suffix becomes
 * `Id` (`person_id` -> `PersonId`). This list is the contract's, not derived: a key joins it
 * only when the contract names it so.
 */
const EXCEPTIONS: Record<string, string> = {
  id: 'ID',
  enterprise_id: 'EnterpriseID',
  crm_deal_id: 'CrmDealID',
};

/** A v2 key in v1 casing: each `_` part capitalised, with the ID exceptions. */
export function pascalKey(key: string): string {
  return (
    EXCEPTIONS[key] ??
    key
      .split('_')
      .map((part) => (part === '' ? '' : part[0]?.toUpperCase() + part.slice(1)))
      .join('')
  );
}
