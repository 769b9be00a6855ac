/** The package's name and version come from package.json alone (issue 15: one place for the name). */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_USER_AGENT } from '../../src/config/crawl-defaults.js';
import { PACKAGE_NAME, PACKAGE_VERSION } from '../../src/config/package-info.js';

const pkg = JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '../../package.json'), 'utf8'));

describe('package info', () => {
  it('is package.json: a name free on the registry (not the unrelated "collector"), the command collector', () => {
    expect(PACKAGE_NAME).toBe(pkg.name);
    expect(PACKAGE_VERSION).toBe(pkg.version);
    expect(PACKAGE_NAME).not.toBe('collector');
    expect(pkg.bin).toEqual({ collector: 'bin/collector.js' });
  });

  it('names the package page in the default User-Agent, after the product token robots.txt matches', () => {
    expect(DEFAULT_USER_AGENT).toBe(
      `collector/${pkg.version.split('.').slice(0, 2).join('.')} (+https://www.npmjs.com/package/${pkg.name})`,
    );
  });
});
