import { isoTimestamp } from '../common/http/iso-timestamp.js';
import { columnsOf } from '../database/entity-columns.js';
import { User } from './user.entity.js';
export interface UserRow {
  id: string;
  name: string;
  email: string;
  is_active: number;
  created_at: Date;
  updated_at: Date;
}

export interface UserRecord {
  id: string;
  name: string;
  email: string;
  is_active: boolean;
  created_at: string;
  updated_at: string;
}

export const USER_COLUMNS = columnsOf(User, ['id', 'name', 'email', 'isActive', 'createdAt', 'updatedAt'], 'u');

export function presentUser(row: UserRow): UserRecord {
  return {
    id: row.id,
    name: row.name,
    email: row.email,
    is_active: row.is_active === 1,
    created_at: isoTimestamp(row.created_at),
    updated_at: isoTimestamp(row.updated_at),
  };
}
