import { describe, expect, it } from 'vitest';
import { parseRepoSlug, repoOfWebUrl } from '../../src/extract/github-repo.js';

describe('parseRepoSlug', () => {
  it('accepts owner/repo with GitHub’s name characters', () => {
    expect(parseRepoSlug('alice/repo')).toEqual({ slug: 'alice/repo', owner: 'alice', name: 'repo' });
    expect(parseRepoSlug('a-1/x.y_z-2')?.slug).toBe('a-1/x.y_z-2');
    expect(parseRepoSlug('github/docs')?.slug).toBe('github/docs');
  });

  it('rejects reserved owners, bad names and other shapes', () => {
    for (const s of [
      'alice',
      'a/b/c',
      '/b',
      'a/',
      '-a/b',
      'a b/c',
      'a/b c',
      'a/.',
      'a/..',
      `${'x'.repeat(40)}/r`,
      `a/${'r'.repeat(101)}`,
      'sponsors/alice',
      'Topics/crawler',
      'orgs/acme',
      'trending/python',
    ])
      expect(parseRepoSlug(s), s).toBeNull();
  });
});

describe('repoOfWebUrl', () => {
  const WEB = 'https://github.com';
  it('reads exactly <web>/<owner>/<repo>', () => {
    expect(repoOfWebUrl('https://github.com/o/r', WEB)?.slug).toBe('o/r');
    expect(repoOfWebUrl('https://github.com/o/r/?tab=readme#x', WEB)?.slug).toBe('o/r');
    expect(repoOfWebUrl('/o/r', WEB)?.slug).toBe('o/r');
    expect(repoOfWebUrl('../o/r', WEB, { base: 'https://github.com/trending/python' })?.slug).toBe('o/r');
  });

  it('rejects users, deeper paths, other hosts and site sections', () => {
    for (const u of [
      'https://github.com/o',
      'https://github.com/o/r/issues',
      'https://github.com/o/r/releases/tag/v1',
      'https://gitlab.com/o/r',
      'https://github.com/sponsors/o',
      'https://github.com/',
      'mailto:o@r',
    ])
      expect(repoOfWebUrl(u, WEB), u).toBeNull();
  });

  it('strips .git only when asked', () => {
    expect(repoOfWebUrl('https://github.com/o/r.git', WEB, { gitSuffix: true })?.slug).toBe('o/r');
    expect(repoOfWebUrl('https://github.com/o/r.git', WEB)?.slug).toBe('o/r.git');
  });

  it('decodes percent-escapes and then validates', () => {
    expect(repoOfWebUrl('https://github.com/o/r%2Dx', WEB)?.slug).toBe('o/r-x');
    expect(repoOfWebUrl('https://github.com/o/r%2Fx', WEB)).toBeNull();
    expect(repoOfWebUrl('https://github.com/o/%E0%A4', WEB)).toBeNull();
  });
});
