import { Application } from '../applications/application.entity.js';
import { AccessToken } from '../common/auth/entities/access-token.entity.js';
import { Address } from '../common/contacts/address.entity.js';
import { Email } from '../common/contacts/email.entity.js';
import { PhoneNumber } from '../common/contacts/phone-number.entity.js';
import { Enterprise } from '../enterprises/enterprise.entity.js';
import { Lead } from '../leads/lead.entity.js';
import { Organisation } from '../organisations/organisation.entity.js';
import { Financial } from '../people/entities/financial.entity.js';
import { Person } from '../people/entities/person.entity.js';
import { Quote } from '../quotes/quote.entity.js';
import { Membership } from '../users/membership.entity.js';
import { User } from '../users/user.entity.js';
import { SigningDocument } from '../webhooks/signing-document.entity.js';

export const ENTITIES = [
  Enterprise,
  User,
  Membership,
  AccessToken,
  Lead,
  Person,
  Financial,
  PhoneNumber,
  Email,
  Address,
  Organisation,
  Application,
  Quote,
  SigningDocument,
];
