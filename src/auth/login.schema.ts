import { ApiProperty } from '@nestjs/swagger';
import type { LoginEnvelope } from '../common/http/envelopes.js';
import { NamedSchema } from '../openapi/record-schema.decorator.js';
import type { UserRecord } from '../users/user.presenter.js';
import { UserSchema } from '../users/user.schema.js';

@NamedSchema('Login', 'The logged-in user and a bearer token, shown only here.')
export class LoginSchema implements LoginEnvelope<UserRecord> {
  @ApiProperty({ type: () => UserSchema }) user!: UserRecord;
  @ApiProperty({
    type: 'string',
    pattern: '^[^|]+\\|[A-Za-z0-9]{40,}$',
    description: 'Send as `Authorization: Bearer <access_token>`; valid until the password changes',
    example: '0f0e3c52-58c4-4a2b-9d7e-3e6f1f1a2b3c|Kq1vVb8Yx2Lr7Tz0Nw4Pm6Hc9Jd3Fs5Ga1Ek8Ro2Ui7Yt4We6Qx',
  })
  access_token!: string;
}
