import { Controller, Get, HttpStatus, Res } from '@nestjs/common';
import { SkipThrottle } from '../common/rate-limit/throttler.js';
import type { FastifyReply } from 'fastify';
import { ApiExtension, ApiResponse, ApiTags } from '@nestjs/swagger';
import { Operation } from '../openapi/api-operation.decorator.js';
import { HealthSchema, LivenessSchema, ReadinessSchema } from './health.schema.js';
import { Public } from '../common/access/public.decorator.js';
import { WithoutEnterprise } from '../common/tenancy/without-enterprise.decorator.js';
import { HealthService, type HealthReport, type ReadinessReport } from './health.service.js';

@Controller('health')
@Public()
@WithoutEnterprise()
@SkipThrottle()
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

  /** Liveness: the process answers. Nothing else is checked, so a database outage never restarts it. */
  @Get('live')
  @Operation('liveness', 'Liveness probe', 'The process serves requests; touches nothing else (no database, no Redis).')
  @ApiExtension('x-no-client-errors', true)
  @ApiResponse({ status: 200, type: LivenessSchema, description: 'The process serves requests.' })
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  /**
   * Readiness: send traffic here. The database answers and every migration of this release is
   * applied; Redis is reported but, the in-process fallback serving, never makes it unready.
   */
  @Get('ready')
  @Operation(
    'readiness',
    'Readiness probe',
    'Whether this instance should receive traffic: the database answers within 2 s, every migration of this ' +
      'release is applied, and the database connections keep prepared statements between transactions (checked ' +
      'once; a pooler in transaction mode that loses them fails every read). Redis, when configured, is reported; while it is down the in-process rate-limit ' +
      'store serves, so it does not make the instance unready.',
  )
  @ApiExtension('x-no-client-errors', true)
  @ApiResponse({
    status: 200,
    type: ReadinessSchema,
    description: 'Ready: the database answers, no migration pending.',
  })
  @ApiResponse({
    status: 503,
    type: ReadinessSchema,
    description:
      'Not ready: the database does not answer within 2 s, a migration is pending, or the connections lose ' +
      'prepared statements between transactions (start with DATABASE_PREPARED_STATEMENTS=false).',
  })
  async ready(@Res({ passthrough: true }) reply: FastifyReply): Promise<ReadinessReport> {
    const report = await this.health.readiness();
    if (report.status !== 'ok') void reply.status(HttpStatus.SERVICE_UNAVAILABLE);
    return report;
  }
}
