import { Module } from '@nestjs/common';
import { AuthController } from './auth.controller.js';
import { LoginService } from './login.service.js';

@Module({ controllers: [AuthController], providers: [LoginService] })
export class AuthModule {}
