import { SetMetadata } from '@nestjs/common';

export const IS_PUBLIC = 'finance-intake:public';

/** The route needs no bearer token (login, register, webhooks, health). Everything else does. */
export const Public = (): MethodDecorator & ClassDecorator => SetMetadata(IS_PUBLIC, true);
