/**
 * The reserved enterprise that keeps the records of no enterprise (people, organisations and leads
 * an import file gives `enterprise_id: null`): a distributed database needs an enterprise in every
 * row of a tenant table, and a primary key cannot hold a NULL. No user can be a member of it (a
 * CHECK on memberships), no command or import file can name it, it is in no list of enterprises,
 * and its records are written out with `enterprise_id: null`, as they were given.
 */
export const NO_ENTERPRISE = '00000000-0000-0000-0000-000000000000';

/** SQL: the enterprise row `alias` is a real one, not the reserved keeper of records of none. */
export function realEnterprise(alias: string): string {
  return `${alias}.id <> '${NO_ENTERPRISE}'`;
}

/** SQL: the stored `enterprise_id` as the API gives it, null for a record of no enterprise. */
export function givenEnterprise(column: string): string {
  return `NULLIF(${column}, '${NO_ENTERPRISE}'::uuid)`;
}

/** SQL: the enterprise to store for a file's `enterprise_id` (the reserved one for null). */
export function storedEnterprise(column: string): string {
  return `COALESCE(${column}, '${NO_ENTERPRISE}'::uuid)`;
}
