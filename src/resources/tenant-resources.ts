import type { ChangeType } from '../changes/change-types.js';
import { APPLICATIONS } from '../applications/applications.resource.js';
import { LEADS } from '../leads/leads.resource.js';
import { ORGANISATIONS } from '../organisations/organisations.resource.js';
import { PEOPLE } from '../people/people.resource.js';
import { QUOTES } from '../quotes/quotes.resource.js';
import { USERS } from '../users/users.resource.js';
import type { TenantResource } from './tenant-resource.js';

/**
 * Every resource of an enterprise, in the order the documents list them. Routes, documents,
 * change feed, ETags, import checks and the shared tests are derived from this list.
 */
export const TENANT_RESOURCES: readonly TenantResource[] = [USERS, LEADS, PEOPLE, ORGANISATIONS, APPLICATIONS, QUOTES];

const BY_CHANGE_TYPE = new Map<ChangeType, TenantResource>(
  TENANT_RESOURCES.flatMap((resource) => (resource.changeType ? [[resource.changeType, resource]] : [])),
);

/** The resource whose changes the feed lists under `type`. */
export function resourceOfType(type: ChangeType): TenantResource {
  const resource = BY_CHANGE_TYPE.get(type);
  if (!resource) throw new Error(`No resource has the change type ${type}`);
  return resource;
}
