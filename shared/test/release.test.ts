import { labelOf } from '../src/release';

test('the release label is the date as YYYY.MM.DD, whatever semver made of its leading zeros', () => {
  expect(labelOf('2026.1.5')).toBe('2026.01.05');
  expect(labelOf('2026.11.22')).toBe('2026.11.22');
  expect(labelOf('1.2.3-beta')).toBe('1.2.3-beta');
});
