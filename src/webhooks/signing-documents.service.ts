import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { FieldCipher } from '../crypto/field-cipher.js';
import { selectRows } from '../database/sql.js';
import type { SignatureProvider } from './signing-document.entity.js';
import { providerANextStatus, providerAStamp, providerBNextStatus, type ProviderBStatus } from './signing-state.js';

export interface KnownDocument {
  id: string;
  enterpriseId: string;
}

/** Signing documents as the webhooks see them: found by provider id, moved under a row lock. */
@Injectable()
export class SigningDocumentsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(FieldCipher) private readonly cipher: FieldCipher,
  ) {}

  async find(provider: SignatureProvider, externalId: string): Promise<KnownDocument | undefined> {
    const [row] = await selectRows<{ id: string; enterprise_id: string }>(
      this.dataSource,
      `SELECT id, enterprise_id FROM signing_documents WHERE provider = $1 AND external_id = $2`,
      [provider, externalId],
    );
    return row && { id: row.id, enterpriseId: row.enterprise_id };
  }

  /** The enterprise's provider B key, decrypted; undefined when none is stored. */
  async providerBKey(enterpriseId: string): Promise<string | undefined> {
    const [row] = await selectRows<{ key: string | null }>(
      this.dataSource,
      `SELECT signprovider_b_key_encrypted AS key FROM enterprises WHERE id = $1`,
      [enterpriseId],
    );
    return row?.key ? this.cipher.decrypt(row.key) : undefined;
  }

  /**
   * Provider A: every state accepts the move; the first entry into signed, declined or revoked
   * stamps its time. One UPDATE locks the row, so concurrent deliveries cannot lose a stamp.
   */
  async moveProviderA(id: string, keyword: string): Promise<void> {
    const next = providerANextStatus(keyword);
    const stamp = providerAStamp(next);
    const stampSql = stamp ? `, ${stamp} = COALESCE(${stamp}, now())` : '';
    const stampChanged = stamp ? ` OR ${stamp} IS NULL` : '';
    await this.dataSource.query(
      `UPDATE signing_documents SET status = $2${stampSql}, updated_at = now()
        WHERE id = $1 AND (status <> $2${stampChanged})`,
      [id, next],
    );
  }

  /**
   * Provider B: the next state depends on the current one (terminal states keep theirs), so the
   * row is read and written in one transaction with it locked.
   */
  async moveProviderB(id: string, envelopeStatus: string): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      const [row] = await selectRows<{ status: ProviderBStatus }>(
        manager,
        `SELECT status FROM signing_documents WHERE id = $1 FOR UPDATE`,
        [id],
      );
      if (!row) return;
      const next = providerBNextStatus(row.status, envelopeStatus);
      if (next === null || next === row.status) return;
      await manager.query(`UPDATE signing_documents SET status = $2, updated_at = now() WHERE id = $1`, [id, next]);
    });
  }
}
