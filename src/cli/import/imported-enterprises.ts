import type { ImportSection } from './import-schema.js';

/**
 * The enterprises a file names: its enterprises, its users' memberships and every tenant
 * record's enterprise. Each of them gets the import on its audit trail.
 */
export class ImportedEnterprises {
  private readonly seen = new Set<string>();

  add(section: ImportSection, record: object): void {
    if (section === 'enterprises') return this.note((record as { id?: unknown }).id);
    if (section === 'users') {
      const ids = (record as { enterprise_ids?: unknown }).enterprise_ids;
      if (Array.isArray(ids)) for (const id of ids) this.note(id);
      return;
    }
    this.note((record as { enterprise_id?: unknown }).enterprise_id);
  }

  ids(): string[] {
    return [...this.seen];
  }

  private note(id: unknown): void {
    if (typeof id === 'string') this.seen.add(id.toLowerCase());
  }
}
