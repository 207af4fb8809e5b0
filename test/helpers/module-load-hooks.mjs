import { appendFileSync } from 'node:fs';

/** Module hooks (loader thread): every module an ES import resolves, one URL a line, to MODULE_LOAD_LOG. */
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  const log = process.env.MODULE_LOAD_LOG;
  if (log) appendFileSync(log, `${result.url}\n`);
  return result;
}
