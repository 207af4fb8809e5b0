import { SetMetadata } from '@nestjs/common';

export const WITHOUT_ENTERPRISE = 'finance-intake:without-enterprise';

/** The route needs no enterprise header (enterprise discovery, login, register, webhooks). */
export const WithoutEnterprise = (): MethodDecorator & ClassDecorator => SetMetadata(WITHOUT_ENTERPRISE, true);
