// `node --import ./test/helpers/log-module-loads.mjs ...`: lists what the process imports.
import { register } from 'node:module';

register('./module-load-hooks.mjs', import.meta.url);
