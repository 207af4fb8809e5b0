// Jest runs the CommonJS modules an ES module imports while it links that module's graph, before
// the graph's ES modules have run; `@nestjs/throttler` (CommonJS) then require()s
// `@nestjs/common` and `@nestjs/core` (ES modules) of the same, unfinished graph, which Jest
// refuses as a require(esm) cycle. Loaded first in every test file, both have run by then.
import '@nestjs/common';
import '@nestjs/core';
