// Writes docs/resources.md from the resource descriptors (npm run docs:resources builds first).
import { writeFileSync } from 'node:fs';
import { RESOURCES_PAGE, resourcesPage } from '../dist/src/docs/resources-page.js';

writeFileSync(new URL(`../${RESOURCES_PAGE}`, import.meta.url), resourcesPage());
process.stdout.write(`Wrote ${RESOURCES_PAGE}.\n`);
