// NestJS 12 ships ES modules only. Node 20.19+ can require() them, but Jest's own module system on
// Node 20 cannot, so for tests Jest turns those packages into CommonJS: import/export and dynamic
// import() by Babel's CommonJS transform, and `import.meta` into its CommonJS equivalents.
const babel = require('@babel/core');

function importMetaToCommonJs({ types: t }) {
  const replacement = babel.template.expression.ast(`({
    url: require('node:url').pathToFileURL(__filename).href,
    dirname: __dirname,
    filename: __filename,
    resolve: (specifier) => require('node:url').pathToFileURL(require.resolve(specifier)).href,
  })`);
  const dynamicImport = babel.template.expression(`Promise.resolve().then(() => {
    const m = require(SPECIFIER);
    return m && m.__esModule ? m : Object.assign({}, m, { default: m });
  })`);
  return {
    visitor: {
      // import(x) becomes a promise of require(x), shaped like a module namespace.
      CallExpression(path) {
        if (path.node.callee.type === 'Import') {
          path.replaceWith(dynamicImport({ SPECIFIER: path.node.arguments[0] }));
        }
      },
      MetaProperty(path) {
        if (path.node.meta.name === 'import' && path.node.property.name === 'meta') {
          path.replaceWith(t.cloneNode(replacement, true));
        }
      },
    },
  };
}

module.exports = {
  process(sourceText, sourcePath) {
    // CommonJS already has `require`; a module-level one from createRequire would clash with it.
    const source = sourceText.replace(/^const require = createRequire\(import\.meta\.url\);$/m, '');
    const result = babel.transformSync(source, {
      filename: sourcePath,
      babelrc: false,
      configFile: false,
      sourceType: 'module',
      sourceMaps: 'inline',
      plugins: [
        importMetaToCommonJs,
        ['@babel/plugin-transform-modules-commonjs', { importInterop: 'node' }],
      ],
    });
    return { code: result.code, map: result.map };
  },
  getCacheKey(sourceText, sourcePath) {
    return require('node:crypto')
      .createHash('sha256')
      .update('esm-to-cjs-v3')
      .update(sourcePath)
      .update(sourceText)
      .digest('hex');
  },
};
