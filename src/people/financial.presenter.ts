import { capitaliseWords, upperFirst } from '../contacts/labels.js';
import type { NestedCollection } from '../database/nested-json.js';

export interface FinancialRecord {
  id: string;
  type: string;
  amount: string;
  category: string | null;
  created_at: string;
  updated_at: string;
}

/**
 * A financial: type with its first letter upper-cased, category with every word capitalised; only
 * amounts above zero are shown.
 */
export const FINANCIALS: NestedCollection<FinancialRecord> = {
  table: 'financials',
  where: 'x.amount > 0',
  fields: [
    { key: 'id', column: 'id', as: 'text' },
    { key: 'type', column: 'type', as: 'label', format: upperFirst },
    { key: 'amount', column: 'amount', as: 'decimal' },
    { key: 'category', column: 'category', as: 'label', format: capitaliseWords },
    { key: 'created_at', column: 'created_at', as: 'timestamp' },
    { key: 'updated_at', column: 'updated_at', as: 'timestamp' },
  ],
};
