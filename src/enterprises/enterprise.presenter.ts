export interface EnterpriseRow {
  id: string;
  name: string;
  is_active: number;
  created_at: Date;
  updated_at: Date;
}

export interface EnterpriseRecord {
  id: string;
  name: string;
  is_active: boolean;
  created_at: string;
  updated_at: string;
}

export function presentEnterprise(row: EnterpriseRow): EnterpriseRecord {
  return {
    id: row.id,
    name: row.name,
    is_active: row.is_active === 1,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}
