export type ProviderAStatus = 'sent' | 'viewed' | 'signed' | 'declined' | 'revoked';
export type ProviderBStatus = 'sent' | 'delivered' | 'completed' | 'declined' | 'voided';

/**
 * Provider A's table, rules tried in its order: a keyword containing `signed` but not
 * `sent`, or containing `completed`, is signed; then declined, revoked, viewed; anything else,
 * including no keyword, is sent. Every state accepts every move.
 */
export function providerANextStatus(keyword: string): ProviderAStatus {
  const k = keyword.toLowerCase();
  if ((k.includes('signed') && !k.includes('sent')) || k.includes('completed')) return 'signed';
  if (k.includes('declined')) return 'declined';
  if (k.includes('revoked')) return 'revoked';
  if (k.includes('viewed')) return 'viewed';
  return 'sent';
}

/** The stamp column the first entry into a provider A status sets, if any. */
export function providerAStamp(status: ProviderAStatus): 'signed_at' | 'declined_at' | 'revoked_at' | null {
  switch (status) {
    case 'signed':
      return 'signed_at';
    case 'declined':
      return 'declined_at';
    case 'revoked':
      return 'revoked_at';
    case 'sent':
    case 'viewed':
      return null;
  }
}

export const PROVIDER_B_TERMINAL: readonly ProviderBStatus[] = ['completed', 'declined', 'voided'];

/**
 * Provider B's table. Terminal states keep their status (null: ignore the event).
 * `delivered` is a move from `sent` only; a repeated `delivered` while delivered keeps the
 * state rather than falling back to `sent` (redelivery is harmless), a choice recorded
 * in docs/decisions/0008-signature-webhooks.md.
 */
export function providerBNextStatus(current: ProviderBStatus, envelopeStatus: string): ProviderBStatus | null {
  if (PROVIDER_B_TERMINAL.includes(current)) return null;
  const s = envelopeStatus.toLowerCase();
  if (s === 'completed' || s === 'declined' || s === 'voided') return s;
  if (s === 'delivered') return 'delivered';
  return 'sent';
}
