import { Global, Module } from '@nestjs/common';
import { readOnlyController } from './read-only-controller.js';
import { ResourceReader } from './resource-reader.js';
import { TENANT_RESOURCES } from './tenant-resources.js';

/** A controller for every read-only resource, derived from its descriptor; the reader for all. */
@Global()
@Module({
  controllers: TENANT_RESOURCES.filter((resource) => !resource.writable).map(readOnlyController),
  providers: [ResourceReader],
  exports: [ResourceReader],
})
export class ResourcesModule {}
