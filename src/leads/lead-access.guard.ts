import { ForbiddenException, Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { RecordNotFoundException } from '../common/http/record-not-found.exception.js';
import { isUuid } from '../common/http/uuid.js';
import { LeadsService } from './leads.service.js';

/**
 * The path-id check for lead writes: the path's lead must exist (404) and belong to the header's
 * enterprise (403) before the body is validated (step 7, in the pipes that run after guards).
 * Route guards run after the global ones, so authentication and membership come first.
 */
@Injectable()
export class LeadAccessGuard implements CanActivate {
  constructor(private readonly leads: LeadsService) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<FastifyRequest<{ Params: { id?: string } }>>();
    const id = request.params.id ?? '';
    if (!isUuid(id)) throw new RecordNotFoundException('Lead', id);
    if (!request.enterpriseId) throw new ForbiddenException();
    await this.leads.assertAccessible(id.toLowerCase(), request.enterpriseId);
    return true;
  }
}
