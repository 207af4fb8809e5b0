import { User } from './user.entity.js';
import type { TenantResource } from '../resources/tenant-resource.js';
import { memberRows } from '../resources/row-sources.js';
import { presentUser, USER_COLUMNS, type UserRecord, type UserRow } from './user.presenter.js';

/** Users belong to enterprises through memberships; the list is every member, unpaginated. */
export const USERS: TenantResource<UserRow, UserRecord> = {
  path: 'users',
  model: 'User',
  changeType: 'user',
  tag: { name: 'Users', description: 'Users of the enterprise in the header. Read-only.' },
  entity: User,
  responseSchema: () => import('./user.schema.js').then((m) => m.UserSchema),
  list: {
    id: 'listUsers',
    summary: "List the enterprise's users",
    description: 'Every user who is a member of the enterprise in the header.',
    answer: 'Every user of the enterprise, newest first; not paginated.',
  },
  retrieve: {
    id: 'getUser',
    summary: 'Retrieve a user',
    description: 'A user of the enterprise in the header, by id.',
    answer: 'The user.',
    otherEnterprise:
      'The user is not a member of the enterprise (v1 skips this check only with `V1_LEGACY_USER_LOOKUP=true`).',
  },
  rows: memberRows<UserRow>(USER_COLUMNS),
  present: (rows) => Promise.resolve(rows.map(presentUser)),
  // V1_LEGACY_USER_LOOKUP: v1 finds any user by id when the legacy look-up is switched on.
  readableOutsideEnterprise: (version, config) => version === 'v1' && config.v1LegacyUserLookup,
};
