import { createNodeResolver, importX } from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';

/**
 * The layers the code keeps: `src/database/` (data source, embedded server, SQL helpers) is the
 * lowest; `src/common/` (the HTTP platform every module shares) sits on it and on `src/config/`.
 * Neither imports a resource or a domain module (auth, contacts, idempotency, crypto, ...):
 * those import them, never the other way round. An allow-list, so a new module is outside
 * both layers until someone decides otherwise here.
 * Kept in its own file so test/unit/layer-boundaries.spec.ts can run it on its own.
 */
export default [
  {
    files: ['src/common/**/*.ts', 'src/database/**/*.ts'],
    languageOptions: { parser: tseslint.parser },
    plugins: { 'import-x': importX },
    settings: {
      // Imports name the compiled `.js`; the sources are `.ts`.
      'import-x/resolver-next': [
        createNodeResolver({ extensions: ['.ts', '.js', '.mjs', '.json'], extensionAlias: { '.js': ['.ts', '.js'] } }),
      ],
    },
    rules: {
      'import-x/no-restricted-paths': [
        'error',
        {
          zones: [
            {
              target: './src/common',
              from: './src',
              except: ['./common', './config', './database', './logging'],
              message:
                'src/common/ is the HTTP platform and knows no resource or domain module: move the piece to a module of its own, or have that module provide it (an injection token, an abstract class).',
            },
            {
              target: './src/logging',
              from: './src',
              except: ['./logging'],
              message: 'src/logging/ is a leaf every layer may use: it imports nothing of the service.',
            },
            {
              target: './src/database',
              from: './src',
              except: ['./database', './config', './logging'],
              message:
                'src/database/ knows no resource, domain module or HTTP code: take what it needs as an argument (the entity list comes from src/data-source.ts).',
            },
          ],
        },
      ],
    },
  },
];
