import { Module } from '@nestjs/common';
import { AuthController } from './auth.controller.js';
import { LoginService } from './login.service.js';
import { LogoutController } from './logout.controller.js';

@Module({ controllers: [AuthController, LogoutController], providers: [LoginService] })
export class AuthModule {}
