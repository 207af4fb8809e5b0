/** Constraint violations and bad values (SQLSTATE classes 22 and 23), not connection faults. */
export function isDataError(error: unknown): error is Error & { code: string } {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code ?? (error as { driverError?: { code?: unknown } }).driverError?.code;
  return typeof code === 'string' && (code.startsWith('22') || code.startsWith('23'));
}
