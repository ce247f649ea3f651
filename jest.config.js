/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/shared', '<rootDir>/services'],
  testMatch: ['**/test/**/*.test.ts'],
  transform: {
    '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022', parser: { syntax: 'typescript' } }, module: { type: 'commonjs' } }],
    // A few of Fastify's dependencies ship only ES modules, which jest's CommonJS runtime cannot require.
    '^.+/node_modules/(cookie|set-cookie-parser)/.+\\.js$': ['@swc/jest', { jsc: { target: 'es2022' }, module: { type: 'commonjs' } }],
  },
  transformIgnorePatterns: ['/node_modules/(?!(cookie|set-cookie-parser)/)'],
  moduleNameMapper: { '^@zgw/shared$': '<rootDir>/shared/src/index.ts' },
  globalSetup: '<rootDir>/test/global-setup.js',
  testTimeout: 60000,
  maxWorkers: 2,
  reporters: ['default', '<rootDir>/test/summary-reporter.js'],
};
