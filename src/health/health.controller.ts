import { Controller, Get, HttpStatus, Res } from '@nestjs/common';
import { SkipRateLimit } from '../common/rate-limit/skip-rate-limit.decorator.js';
import type { FastifyReply } from 'fastify';
import { ApiExtension, ApiResponse, ApiTags } from '@nestjs/swagger';
import { Operation } from '../openapi/api-operation.decorator.js';
import { HealthSchema } from './health.schema.js';
import { Public } from '../common/auth/public.decorator.js';
import { WithoutEnterprise } from '../common/tenancy/without-enterprise.decorator.js';
import { HealthService, type HealthReport } from './health.service.js';

@Controller('health')
@Public()
@WithoutEnterprise()
@SkipRateLimit()
@ApiTags('Health')
export class HealthController {
  constructor(private readonly health: HealthService) {}

  /** 200 when the database answers (Redis down is degraded, still 200); 503 when it does not. */
  @Get()
  @Operation('health', 'Health check', 'Whether the database (and Redis, when configured) answers.')
  // No input, no token, no rate limit: nothing a client sends can make it a 4xx (the lint's one exception).
  @ApiExtension('x-no-client-errors', true)
  @ApiResponse({
    status: 200,
    type: HealthSchema,
    description: 'The database answers (Redis down is degraded, still 200).',
  })
  @ApiResponse({ status: 503, type: HealthSchema, description: 'The database does not answer within 2 s.' })
  async check(@Res({ passthrough: true }) reply: FastifyReply): Promise<HealthReport> {
    const report = await this.health.report();
    if (report.status !== 'ok') void reply.status(HttpStatus.SERVICE_UNAVAILABLE);
    return report;
  }
}
