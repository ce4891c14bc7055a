// TypeScript for Jest, by SWC: strips the types and emits decorators and their metadata as tsc does
// (experimentalDecorators, emitDecoratorMetadata), a file at a time; type-checking is `npm run
// compile`'s. jest.mock() calls are hoisted above the imports, as ts-jest and babel-jest do.
// Not @swc/jest: its cache key carries each project's whole config, so the five test projects would
// each transform every file again. Here the key is the file and these options only, and the projects
// share one `id` (jest.config.js), hence one transform cache.
const { createHash } = require('node:crypto');
const swc = require('@swc/core');

const OPTIONS = {
  jsc: {
    parser: { syntax: 'typescript', decorators: true },
    transform: {
      legacyDecorator: true,
      decoratorMetadata: true,
      useDefineForClassFields: true,
      hidden: { jest: true },
    },
    target: 'es2022',
    keepClassNames: true,
  },
  module: { type: 'commonjs' },
  sourceMaps: 'inline',
  swcrc: false,
  configFile: false,
};
const KEY = createHash('sha256')
  .update(`ts-swc ${require('@swc/core/package.json').version} ${JSON.stringify(OPTIONS)}`)
  .digest('hex');

module.exports = {
  process(sourceText, sourcePath) {
    return { code: swc.transformSync(sourceText, { ...OPTIONS, filename: sourcePath }).code };
  },
  getCacheKey(sourceText, sourcePath) {
    return createHash('sha256').update(KEY).update(sourcePath).update(sourceText).digest('hex');
  },
};
