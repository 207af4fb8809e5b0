const EXCEPTIONS: Record<string, string> = {
  id: 'ID',
  enterprise_id: 'EnterpriseID',
  crm_deal_id: 'CrmDealID',
};

/** A v2 key in v1 casing: each `_` part capitalised, with the ID exceptions. */
export function pascalKey(key: string): string {
  return (
    EXCEPTIONS[key] ??
    key
      .split('_')
      .map((part) => (part === '' ? '' : part[0]?.toUpperCase() + part.slice(1)))
      .join('')
  );
}
