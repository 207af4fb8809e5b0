import { Module } from '@nestjs/common';
import { CountFolder } from './count-folder.js';

/** The background fold of row-count deltas, in every process that serves requests. */
@Module({ providers: [CountFolder] })
export class CountFolderModule {}
