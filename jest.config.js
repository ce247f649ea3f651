/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/shared', '<rootDir>/services'],
  modulePathIgnorePatterns: ['<rootDir>/.*/dist/'],
  testMatch: ['**/test/**/*.test.ts'],
  transform: {
    // Transpile only (the type check is `tsc -b`, run first by scripts/test.sh).
    '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.test.json', isolatedModules: true }],
    // A few of Fastify's dependencies ship only ES modules, which jest's CommonJS runtime cannot require.
    '^.+/node_modules/(cookie|set-cookie-parser)/.+\\.js$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.test.json', isolatedModules: true }],
  },
  transformIgnorePatterns: ['/node_modules/(?!(cookie|set-cookie-parser)/)'],
  moduleNameMapper: { '^@zgw/shared$': '<rootDir>/shared/src/index.ts' },
  globalSetup: '<rootDir>/test/global-setup.js',
  testTimeout: 60000,
  maxWorkers: 2,
  reporters: ['default', '<rootDir>/test/summary-reporter.js'],
};
