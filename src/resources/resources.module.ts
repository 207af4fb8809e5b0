import { Global, Module } from '@nestjs/common';
import type { ApiVersion } from '../common/http/api-version.js';
import { readOnlyController } from './read-only-controller.js';
import { RecordCache } from './record-cache.js';
import { ResourceReader } from './resource-reader.js';
import { TableWrites } from '../writes/table-writes.js';
import { writableIn } from './tenant-resource.js';
import { TENANT_RESOURCES } from './tenant-resources.js';

const VERSIONS: readonly ApiVersion[] = ['v1', 'v2'];

/**
 * A controller for every resource in the versions it is read-only in, derived from its
 * descriptor (a writable version's controller is the resource's own); the reader and the record
 * cache for all, and the writes of a record that is one row of its table (`TableWrites`).
 */
@Global()
@Module({
  controllers: TENANT_RESOURCES.flatMap((resource) => {
    const readOnly = VERSIONS.filter((version) => !writableIn(resource, version));
    return readOnly.length === 0 ? [] : [readOnlyController(resource, readOnly)];
  }),
  providers: [ResourceReader, RecordCache, TableWrites],
  exports: [ResourceReader, RecordCache, TableWrites],
})
export class ResourcesModule {}
