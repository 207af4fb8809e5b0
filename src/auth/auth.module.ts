import { Module } from '@nestjs/common';
import { AuthController } from './auth.controller.js';
import { LoginService } from './login.service.js';
import { LogoutController } from './logout.controller.js';
import { EnterpriseTokensController } from './enterprise-tokens.controller.js';

@Module({ controllers: [AuthController, LogoutController, EnterpriseTokensController], providers: [LoginService] })
export class AuthModule {}
