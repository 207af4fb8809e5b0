import { All, Body, Controller, ForbiddenException, HttpCode, Post, Req, ValidationPipe } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { auditActorOf } from '../audit/audit-trail.js';
import { ApiBody, ApiResponse, ApiTags } from '@nestjs/swagger';
import { Public } from '../common/access/public.decorator.js';
import { BOTH_VERSIONS } from '../common/http/api-version.js';
import { LoginEnvelope } from '../common/http/envelopes.js';
import { ErrorMessages } from '../common/http/error-messages.js';
import { laravelErrors } from '../common/http/laravel-errors.js';
import { FormValidationException } from '../common/http/validation-failed.exception.js';
import { WithoutEnterprise } from '../common/tenancy/without-enterprise.decorator.js';
import type { UserRecord } from '../users/user.presenter.js';
import { ErrorSchema } from '../openapi/error.schema.js';
import { Operation } from '../openapi/api-operation.decorator.js';
import { ApiDisabled, ApiFormValidation, ApiWithoutDatabase } from '../openapi/api-responses.decorator.js';
import { validationSchema } from '../openapi/validation-schema.js';
import { LoginDto } from './dto/login.dto.js';
import { DEMO_CREDENTIALS } from '../demo/demo-document.js';
import { LoginSchema } from './login.schema.js';
import { LoginService } from './login.service.js';

const DEMO_USER = DEMO_CREDENTIALS[0];

const loginValidation = new ValidationPipe({
  transform: true,
  whitelist: true,
  exceptionFactory: (errors) => new FormValidationException(laravelErrors(errors)),
});

/** Login and (disabled) registration, the same in both versions; bodies are not normalised. */
@Controller({ version: BOTH_VERSIONS })
@ApiTags('Authentication')
@Public()
@WithoutEnterprise()
export class AuthController {
  constructor(private readonly logins: LoginService) {}

  @Post('login')
  @HttpCode(200)
  @Operation('login', 'Log in', 'Exchanges an email and password for a bearer token. The body is not normalised.')
  @ApiBody({
    schema: validationSchema(LoginDto, { title: 'LoginInput' }),
    examples: {
      demo: {
        summary: 'The demo user',
        description: 'The user of the demo data set the embedded database is seeded with on its first start.',
        value: { email: DEMO_USER.email, password: DEMO_USER.password },
      },
    },
  })
  @ApiResponse({ status: 200, type: LoginSchema, description: 'The user and their bearer token.' })
  @ApiResponse({
    status: 401,
    type: ErrorSchema,
    description: `Wrong email or password, or an inactive user: \`${ErrorMessages.invalidCredentials}\``,
  })
  @ApiFormValidation('The email or password is missing, not a string, or the email is not an email address.')
  async login(
    @Body(loginValidation) body: LoginDto,
    @Req() request: FastifyRequest,
  ): Promise<LoginEnvelope<UserRecord>> {
    const result = await this.logins.login(body.email, body.password, auditActorOf(request));
    return new LoginEnvelope(result.user, result.accessToken);
  }

  @All('register')
  @Operation('register', 'Register (disabled)', 'Accounts are created by an administrator: every method answers 403.')
  @ApiDisabled(ErrorMessages.registrationDisabled)
  @ApiWithoutDatabase()
  register(): never {
    throw new ForbiddenException({ message: ErrorMessages.registrationDisabled });
  }
}
