import { importGroup } from '../helpers/test-groups.mjs';

await importGroup('e2e', 2);
