import { SetMetadata } from '@nestjs/common';

export const SKIP_RATE_LIMIT = 'finance-intake:skip-rate-limit';

/** Leaves a controller or route out of the rate limit (health and API docs only). */
export const SkipRateLimit = (): ClassDecorator & MethodDecorator => SetMetadata(SKIP_RATE_LIMIT, true);
