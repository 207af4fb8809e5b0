import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Controller, Get, Header, NotFoundException, Param, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { Public } from '../common/access/public.decorator.js';
import { API_VERSIONS } from './openapi-documents.js';
import { ErrorMessages } from '../common/http/error-messages.js';
import { SkipThrottle } from '../common/rate-limit/throttler.js';
import { WithoutEnterprise } from '../common/tenancy/without-enterprise.decorator.js';

export const DOCS_PATH = '/docs';

/** The files of swagger-ui-dist the page loads, with their types. */
const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui-standalone-preset.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
  'favicon-16x16.png': 'image/png',
};

const PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Finance Intake API</title>
    <link rel="stylesheet" href="${DOCS_PATH}/swagger-ui.css" />
    <link rel="icon" type="image/png" href="${DOCS_PATH}/favicon-32x32.png" />
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="${DOCS_PATH}/swagger-ui-bundle.js"></script>
    <script src="${DOCS_PATH}/swagger-ui-standalone-preset.js"></script>
    <script src="${DOCS_PATH}/swagger-initializer.js"></script>
  </body>
</html>
`;

// A file of its own rather than an inline script, so a strict Content-Security-Policy can allow it.
// No validator badge: the page calls nothing but this service.
const INITIALIZER = `window.ui = SwaggerUIBundle({
  urls: ${JSON.stringify([...API_VERSIONS].reverse().map((v) => ({ url: `/api/${v}/openapi.json`, name: v })))},
  'urls.primaryName': 'v2',
  dom_id: '#swagger-ui',
  deepLinking: true,
  presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
  plugins: [SwaggerUIBundle.plugins.DownloadUrl],
  layout: 'StandaloneLayout',
  validatorUrl: null,
  displayRequestDuration: true,
});
`;

const distDir = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
const files = new Map<string, Buffer>();

function asset(name: string): Buffer {
  let file = files.get(name);
  if (file === undefined) {
    file = readFileSync(join(distDir, name));
    files.set(name, file);
  }
  return file;
}

/**
 * Interactive documentation of both versions (Swagger UI from swagger-ui-dist, served from
 * this process: no CDN). Public and not rate limited.
 */
@Controller('docs')
@Public()
@WithoutEnterprise()
@SkipThrottle()
@ApiExcludeController()
export class DocsController {
  @Get()
  @Header('Content-Type', 'text/html; charset=utf-8')
  page(): string {
    return PAGE;
  }

  @Get('swagger-initializer.js')
  @Header('Content-Type', 'text/javascript; charset=utf-8')
  initializer(): string {
    return INITIALIZER;
  }

  @Get(':asset')
  file(@Param('asset') name: string, @Res({ passthrough: true }) reply: FastifyReply): Buffer {
    const type = Object.hasOwn(ASSETS, name) ? ASSETS[name] : undefined;
    if (type === undefined)
      throw new NotFoundException({ message: ErrorMessages.routeNotFound(`${DOCS_PATH}/${name}`) });
    void reply.type(type).header('Cache-Control', 'public, max-age=86400');
    return asset(name);
  }
}
