import { importGroup } from '../helpers/test-groups.mjs';

await importGroup('api', 2);
