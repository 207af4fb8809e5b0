import { randomBytes, randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import type { FieldCipher } from '../crypto/field-cipher.js';
import { affectedRows } from '../database/sql.js';
import { realEnterprise } from '../database/no-enterprise.js';

export class EnterpriseAdminError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EnterpriseAdminError';
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Operator actions on enterprises (the API cannot create or change them). */
export class EnterpriseAdmin {
  constructor(
    private readonly dataSource: DataSource,
    private readonly cipher: FieldCipher,
  ) {}

  async create(name: string): Promise<string> {
    if (name.trim() === '' || name.length > 255)
      throw new EnterpriseAdminError('The name must be 1 to 255 characters.');
    const id = randomUUID();
    await this.dataSource.query(`INSERT INTO enterprises (id, name) VALUES ($1, $2)`, [id, name.trim()]);
    return id;
  }

  /** Stores (encrypted) the enterprise's provider B HMAC key; generates one when none is given. */
  async setSigningKey(enterpriseId: string, key?: string): Promise<string> {
    if (!UUID.test(enterpriseId)) throw new EnterpriseAdminError('The enterprise id must be a UUID.');
    const value = key ?? randomBytes(32).toString('base64');
    if (value.length < 16) throw new EnterpriseAdminError('The key must be at least 16 characters.');
    const updated = await affectedRows(
      this.dataSource,
      `UPDATE enterprises e SET signprovider_b_key_encrypted = $2, updated_at = now() WHERE e.id = $1 AND ${realEnterprise('e')}`,
      [enterpriseId, this.cipher.encrypt(value)],
    );
    if (updated === 0) throw new EnterpriseAdminError(`No enterprise has the id ${enterpriseId}.`);
    return value;
  }
}
