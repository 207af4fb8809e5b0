import { SetMetadata } from '@nestjs/common';
import type { RecordCasing } from './v1-casing.js';

export const V1_CASING = 'finance-intake:v1-casing';

/** Overrides how the records of a v1 controller are cased (the enterprise record keeps lowercase timestamps); read by caseV1Answers. */
export const V1Casing = (casing: RecordCasing): ClassDecorator => SetMetadata(V1_CASING, casing);
