import { createHash } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { entityTag, LAST_MIGRATION_IN_TAGS, tagBase } from '../../src/common/http/conditional/entity-tag.js';
import { MIGRATIONS } from '../../src/database/migrations.js';

const names = MIGRATIONS.map((migration) => migration.name);

describe('ETags across upgrades', () => {
  it('are the tags already given out: the format and every migration up to the stored-JSON one', () => {
    const upTo = names.slice(0, names.indexOf(LAST_MIGRATION_IN_TAGS) + 1);
    expect(upTo.at(-1)).toBe(LAST_MIGRATION_IN_TAGS);
    // The tag as releases up to that migration computed it, from every migration's name.
    const before = createHash('sha256')
      .update(`1|${upTo.join(',')}`)
      .update('\0')
      .update(['person', 'abc', '42'].join('\0'))
      .digest('base64url');
    expect(entityTag(['person', 'abc', '42'])).toBe(`W/"${before.slice(0, 27)}"`);
  });

  it('stay the same when a later migration is added (an upgrade that leaves the answers alone)', () => {
    expect(tagBase([...names, 'TenantKeys1799999999999', 'AuditEvents1799999999998'])).toBe(tagBase(names));
    // The migrations up to the stored-JSON one are in every tag already given out.
    const last = names.indexOf(LAST_MIGRATION_IN_TAGS);
    expect(tagBase(names.slice(0, last + 1))).not.toBe(tagBase(names.slice(0, last)));
  });
});
