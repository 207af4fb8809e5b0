import { importGroup } from '../helpers/test-groups.mjs';

await importGroup('cli', 1);
