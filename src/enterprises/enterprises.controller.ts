import { Controller, ForbiddenException, Get, Param } from '@nestjs/common';
import type { AuthenticatedUser } from '../common/access/authenticated-user.js';
import { CurrentUser } from '../common/access/current-user.decorator.js';
import { AccessMessages } from '../common/access/required-access.js';
import { V1Casing } from '../common/casing/v1-casing.decorator.js';
import { BOTH_VERSIONS } from '../common/http/api-version.js';
import { DataEnvelope } from '../common/http/envelopes.js';
import { ReadOnlyRoutes } from '../resources/read-only-routes.js';
import { RecordIdPipe } from '../common/http/record-id.pipe.js';
import { WithoutEnterprise } from '../common/tenancy/without-enterprise.decorator.js';
import { ApiTags } from '@nestjs/swagger';
import { Operation } from '../openapi/api-operation.decorator.js';
import { ApiList, ApiRecord, ApiRecordId, ApiOtherEnterprise } from '../openapi/api-responses.decorator.js';
import type { EnterpriseRecord } from './enterprise.presenter.js';
import { EnterpriseSchema } from './enterprise.schema.js';
import { EnterprisesService } from './enterprises.service.js';

/** Enterprise discovery: no enterprise header needed. Same behaviour in v1 and v2. */
@Controller({ path: 'enterprises', version: BOTH_VERSIONS })
@WithoutEnterprise()
@ApiTags('Enterprises')
// The v1 enterprise record keeps lowercase created_at/updated_at.
@V1Casing({ lowercaseTimestamps: true })
export class EnterprisesController extends ReadOnlyRoutes {
  constructor(private readonly enterprises: EnterprisesService) {
    super();
  }

  @Get()
  @Operation(
    'listEnterprises',
    'List your enterprises',
    'The enterprises the caller belongs to: where the enterprise header values come from.',
  )
  @ApiList(EnterpriseSchema, 'Every enterprise the caller belongs to, newest first; not paginated.')
  async list(@CurrentUser() user: AuthenticatedUser): Promise<DataEnvelope<EnterpriseRecord[]>> {
    const all = await this.enterprises.listForUser(user.id);
    // A token bound to some enterprises lists those only.
    const bound = user.scope?.enterprises;
    return new DataEnvelope(bound ? all.filter((enterprise) => bound.includes(enterprise.id)) : all);
  }

  @Get(':id')
  @Operation('getEnterprise', 'Retrieve an enterprise', 'An enterprise the caller belongs to, by id.')
  @ApiRecord(EnterpriseSchema, 'The enterprise.')
  @ApiRecordId('Enterprise')
  @ApiOtherEnterprise(
    'The caller does not belong to this enterprise, or the token is bound to other enterprises ' +
      `(\`${AccessMessages.tokenNotForEnterprise}\`).`,
  )
  async retrieve(
    @Param('id', new RecordIdPipe('Enterprise')) id: string,
    @CurrentUser() user: AuthenticatedUser,
  ): Promise<DataEnvelope<EnterpriseRecord>> {
    const enterprise = await this.enterprises.getForUser(id, user.id);
    const bound = user.scope?.enterprises;
    if (bound && !bound.includes(enterprise.id)) {
      throw new ForbiddenException({ message: AccessMessages.tokenNotForEnterprise });
    }
    return new DataEnvelope(enterprise);
  }
}
