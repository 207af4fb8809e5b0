export type ApiVersion = 'v1' | 'v2';

/** The API version a request path belongs to, from its prefix (`/api/v1/...`). */
export function apiVersionOf(url: string): ApiVersion | undefined {
  if (url.startsWith('/api/v1/') || url === '/api/v1') return 'v1';
  if (url.startsWith('/api/v2/') || url === '/api/v2') return 'v2';
  return undefined;
}

/** For `@Controller({ version })` when a controller serves both versions unchanged. */
export const BOTH_VERSIONS = ['1', '2'];
