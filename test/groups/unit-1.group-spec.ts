import { importGroup } from '../helpers/test-groups.mjs';

await importGroup('unit', 1);
