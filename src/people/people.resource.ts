import { Person } from './entities/person.entity.js';
import type { TenantResource } from '../resources/tenant-resource.js';
import { PEOPLE_ROWS, presentPeople } from './people.queries.js';
import type { PersonJson, PersonRow, PlainPersonRow } from './person.presenter.js';

export const PEOPLE: TenantResource<PersonRow | PlainPersonRow, PersonJson> = {
  path: 'people',
  model: 'Person',
  changeType: 'person',
  tag: { name: 'People', description: 'Natural persons. Read-only.' },
  entity: Person,
  responseSchema: () => import('./person.schema.js').then((m) => m.PersonSchema),
  list: {
    id: 'listPeople',
    summary: 'List people',
    description: "The enterprise's people, 100 a page, with their contact and financial rows.",
    answer: "A page of the enterprise's people, newest first.",
  },
  retrieve: {
    id: 'getPerson',
    summary: 'Retrieve a person',
    description: 'A person of the enterprise in the header, by id.',
    answer: 'The person.',
  },
  rows: PEOPLE_ROWS,
  present: (rows, { db, cipher, enterpriseId }) => presentPeople(db, cipher, rows, enterpriseId),
};
