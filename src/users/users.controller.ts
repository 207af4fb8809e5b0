import { Controller, Get, Inject, Param } from '@nestjs/common';
import { ConditionalRead } from '../changes/conditional-read.interceptor.js';
import { BOTH_VERSIONS, type ApiVersion } from '../common/http/api-version.js';
import { RequestApiVersion } from '../common/http/api-version.decorator.js';
import { DataEnvelope } from '../common/http/envelopes.js';
import { ReadOnlyRoutes } from '../common/http/read-only-routes.js';
import { RecordIdPipe } from '../common/http/record-id.pipe.js';
import { CurrentEnterprise } from '../common/tenancy/current-enterprise.decorator.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { ApiTags } from '@nestjs/swagger';
import { Operation } from '../openapi/api-operation.decorator.js';
import { ApiList, ApiRecord, ApiRecordId, ApiOtherEnterprise } from '../openapi/api-responses.decorator.js';
import type { UserRecord } from './user.presenter.js';
import { UserSchema } from './user.schema.js';
import { UsersService } from './users.service.js';

@Controller({ path: 'users', version: BOTH_VERSIONS })
@ApiTags('Users')
export class UsersController extends ReadOnlyRoutes {
  constructor(
    private readonly users: UsersService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    super();
  }

  @Get()
  @ConditionalRead('user')
  @Operation('listUsers', "List the enterprise's users", 'Every user who is a member of the enterprise in the header.')
  @ApiList(UserSchema, 'Every user of the enterprise, newest first; not paginated.')
  async list(@CurrentEnterprise() enterpriseId: string): Promise<DataEnvelope<UserRecord[]>> {
    return new DataEnvelope(await this.users.listForEnterprise(enterpriseId));
  }

  @Get(':id')
  @ConditionalRead('user')
  @Operation('getUser', 'Retrieve a user', 'A user of the enterprise in the header, by id.')
  @ApiRecord(UserSchema, 'The user.')
  @ApiRecordId('User')
  @ApiOtherEnterprise(
    'The user is not a member of the enterprise (v1 skips this check only with `V1_LEGACY_USER_LOOKUP=true`).',
  )
  async retrieve(
    @Param('id', new RecordIdPipe('User')) id: string,
    @CurrentEnterprise() enterpriseId: string,
    @RequestApiVersion() version: ApiVersion,
  ): Promise<DataEnvelope<UserRecord>> {
    const mustBelong = version === 'v2' || !this.config.v1LegacyUserLookup;
    return new DataEnvelope(await this.users.get(id, enterpriseId, mustBelong));
  }
}
