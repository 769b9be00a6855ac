import { describe, expect, it } from 'vitest';
import {
  DEFAULT_README_NAMES,
  decodeReadmeJson,
  nextReadmeName,
  readmeExtension,
  readmeFromRaw,
  readmeRepoLinks,
  readmeRequest,
  readmeSymlinkTarget,
} from '../../src/extract/github-readme.js';
import { parseRepoSlug } from '../../src/extract/github-repo.js';

const repo = parseRepoSlug('alice/tool')!;
const BASES = { api: 'https://api.github.com', raw: 'https://raw.githubusercontent.com' };
const GHE = { api: 'https://ghe.example/api/v3', raw: 'https://ghe.example/raw/' };

/** GitHub wraps base64 content at 60 characters. */
function githubBase64(bytes: Buffer): string {
  return `${(bytes.toString('base64').match(/.{1,60}/g) ?? []).join('\n')}\n`;
}

describe('readmeRequest', () => {
  it('raw: <raw>/<o>/<r>/HEAD/<name>, no headers, prefix kept', () => {
    expect(readmeRequest(repo, BASES, 'raw')).toEqual({
      url: 'https://raw.githubusercontent.com/alice/tool/HEAD/README.md',
      headers: {},
      via: 'raw',
      name: 'README.md',
    });
    expect(readmeRequest(repo, GHE, 'raw', 'read me.rst').url).toBe(
      'https://ghe.example/raw/alice/tool/HEAD/read%20me.rst',
    );
    expect(() => readmeRequest(repo, BASES, 'raw', '../x')).toThrow(TypeError);
  });

  it('api / api-raw: /repos/<o>/<r>/readme with the JSON or raw media type, no credentials', () => {
    const json = readmeRequest(repo, GHE, 'api');
    expect(json.url).toBe('https://ghe.example/api/v3/repos/alice/tool/readme');
    expect(json.headers).toEqual({
      accept: 'application/vnd.github+json',
      'x-github-api-version': '2022-11-28',
    });
    expect(json.name).toBeNull();
    expect(readmeRequest(repo, BASES, 'api-raw').headers.accept).toBe('application/vnd.github.raw');
    expect(JSON.stringify(json)).not.toMatch(/authorization/i);
  });

  it('nextReadmeName walks the configured names, then stops', () => {
    const seen = [DEFAULT_README_NAMES[0]];
    for (let n = nextReadmeName(seen[0]); n !== null; n = nextReadmeName(n)) seen.push(n);
    expect(seen).toEqual(DEFAULT_README_NAMES);
    expect(nextReadmeName('b', ['a', 'b'])).toBeNull();
    expect(nextReadmeName('zzz', ['a', 'b'])).toBeNull();
  });
});

describe('README bytes and names', () => {
  const tricky = Buffer.concat([
    Buffer.from([0xef, 0xbb, 0xbf]), // BOM
    Buffer.from('# Caf', 'latin1'),
    Buffer.from([0xe9]), // é in ISO-8859-1: not UTF-8
    Buffer.from('\r\nline two\r\n\r\n', 'latin1'),
    Buffer.from([0x00, 0xff, 0xfe]),
  ]);

  it('decodes the API JSON to the exact bytes (BOM, CRLF, non-UTF-8 untouched)', () => {
    const r = decodeReadmeJson({
      type: 'file',
      name: 'README.rst',
      path: 'docs/README.rst',
      size: tricky.length,
      encoding: 'base64',
      content: githubBase64(tricky),
      download_url: 'https://raw.githubusercontent.com/alice/tool/main/docs/README.rst',
    });
    expect(r.kind).toBe('file');
    if (r.kind !== 'file') return;
    expect(r.bytes.equals(tricky)).toBe(true);
    expect(r).toMatchObject({ name: 'README.rst', ext: '.rst', path: 'docs/README.rst' });
  });

  it('an empty README is a file of 0 bytes; a large one points to its download URL', () => {
    expect(decodeReadmeJson({ name: 'README', size: 0, encoding: 'base64', content: '' })).toMatchObject({
      kind: 'file',
      ext: '',
      bytes: Buffer.alloc(0),
    });
    expect(
      decodeReadmeJson({
        name: 'README.md',
        size: 2_000_000,
        encoding: 'none',
        content: '',
        download_url: 'u',
      }),
    ).toEqual({ kind: 'too-large', name: 'README.md', path: 'README.md', size: 2_000_000, downloadUrl: 'u' });
  });

  it('rejects what is not a whole base64 file', () => {
    expect(() => decodeReadmeJson({ type: 'dir' })).toThrow(/not a file/);
    expect(() => decodeReadmeJson({ name: 'R', encoding: 'utf-8', content: 'x' })).toThrow(
      /unknown encoding/,
    );
    expect(() => decodeReadmeJson({ name: 'R', encoding: 'base64', content: 'a$b' })).toThrow(/not base64/);
    expect(() => decodeReadmeJson({ name: 'R', size: 10, encoding: 'base64', content: 'YWJj' })).toThrow(
      /3 bytes, "size" says 10/,
    );
  });

  it('a name with a path separator is not trusted', () => {
    const r = decodeReadmeJson({ name: '../../etc/passwd', encoding: 'base64', content: 'YQ==' });
    expect(r.kind === 'file' && r.name).toBe('README');
  });

  it('readmeFromRaw keeps the body as is and names it by the request', () => {
    expect(readmeFromRaw({ name: 'readme.md' }, tricky)).toEqual({
      name: 'readme.md',
      ext: '.md',
      path: 'readme.md',
      bytes: tricky,
    });
    expect(readmeFromRaw({ name: null }, tricky).name).toBe('README');
  });

  it('readmeExtension', () => {
    expect(readmeExtension('README.md')).toBe('.md');
    expect(readmeExtension('README.en.rst')).toBe('.rst');
    expect(readmeExtension('README')).toBe('');
    expect(readmeExtension('.readme')).toBe('');
  });
});

describe('readmeRepoLinks', () => {
  const WEB = 'https://github.com';
  it('finds repositories in absolute, clone, Markdown, reference and HTML links, in order, once each', () => {
    const text = `# Tool
See [the parser](https://github.com/bob/parser), and https://github.com/carol/lib.
Clone: \`git clone https://github.com/dave/cli.git\`
<a href="/erin/site">site</a> [ref]: /frank/x "title"
[again](https://github.com/Bob/Parser) [self](https://github.com/alice/tool)
[rel](/gina/y)
[ref2]: https://github.com/hank/z
`;
    expect(readmeRepoLinks(text, WEB, repo).map((r) => r.slug)).toEqual([
      'bob/parser',
      'carol/lib',
      'dave/cli',
      'erin/site',
      'gina/y',
      'hank/z',
    ]);
  });

  it('takes none of users, repo pages, site sections, other hosts, relative file links', () => {
    const text = `[user](https://github.com/bob) [issues](https://github.com/bob/parser/issues)
[rel](https://github.com/bob/parser/releases/tag/v1) [spon](https://github.com/sponsors/bob)
[gl](https://gitlab.com/x/y) [doc](docs/guide) [doc2](./a/b) <a href="//github.com/p/q">proto-rel</a>
badge: ![ci](https://github.com/o/r/actions/workflows/ci.yml/badge.svg)`;
    expect(readmeRepoLinks(text, WEB)).toEqual([]);
  });

  it('resolves root-relative links against a web base with a prefix', () => {
    const web = 'https://ghe.example/gh';
    expect(
      readmeRepoLinks('[a](https://ghe.example/gh/o/r) [b](/o2/r2) [c](https://github.com/x/y)', web).map(
        (r) => r.slug,
      ),
    ).toEqual(['o/r']);
  });
});

describe('README symbolic links and paths', () => {
  const b = (s: string) => Buffer.from(s);
  it("a raw answer that is a link target is resolved against the link's directory", () => {
    expect(readmeSymlinkTarget(b('docs/README.md'), 'README.md')).toBe('docs/README.md');
    expect(readmeSymlinkTarget(b('../README.md'), 'docs/README.md')).toBe('README.md');
    expect(readmeSymlinkTarget(b('./README.rst'), '.github/README.md')).toBe('.github/README.rst');
    expect(readmeSymlinkTarget(b('README.rst'), 'README.md')).toBe('README.rst');
  });

  it('content is not a link: text, several lines, outside the repository, itself, absolute, big', () => {
    for (const [body, path] of [
      ['Nothing here yet.', 'README.md'],
      ['# Title\n', 'README.md'],
      ['docs/README.md\nmore', 'README.md'],
      ['../../etc/passwd', 'README.md'],
      ['README.md', 'README.md'],
      ['/etc/README', 'README.md'],
      ['hello', 'README.md'],
      [`docs/${'a'.repeat(2000)}`, 'README.md'],
    ])
      expect(readmeSymlinkTarget(b(body), path), body).toBeNull();
  });

  it('raw requests for paths below the root encode each segment; readmeFromRaw names the file by its last', () => {
    expect(readmeRequest(repo, BASES, 'raw', '.github/READ ME.md').url).toBe(
      'https://raw.githubusercontent.com/alice/tool/HEAD/.github/READ%20ME.md',
    );
    expect(() => readmeRequest(repo, BASES, 'raw', 'docs//README.md')).toThrow(TypeError);
    expect(readmeFromRaw({ name: 'docs/README.rst' }, b('x'))).toMatchObject({
      name: 'README.rst',
      ext: '.rst',
      path: 'docs/README.rst',
    });
  });

  it('an API answer for a symbolic link names its target', () => {
    expect(
      decodeReadmeJson({ type: 'symlink', name: 'README.md', path: 'README.md', target: 'docs/README.md' }),
    ).toEqual({
      kind: 'symlink',
      path: 'README.md',
      target: 'docs/README.md',
    });
    expect(() => decodeReadmeJson({ type: 'symlink', path: 'README.md', target: '../../x' })).toThrow(
      TypeError,
    );
  });
});
