import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { preferBody } from '../../src/extract/content.js';
import { extractContent } from '../../src/extract/page-content.js';

const FIXTURES = path.join(import.meta.dirname, '../fixtures/content');

/** The content of a fixture page (test/fixtures/content/<name>.html), as served at a docs URL. */
function page(name: string) {
  return extractContent(
    readFileSync(path.join(FIXTURES, `${name}.html`), 'utf8'),
    `https://docs.example.org/${name}/page.html`,
  );
}

describe('documentation pages, written from scratch in the markup of common generators', () => {
  it('Sphinx: Pygments code with its language, a docutils table, a py:function definition, no ¶', () => {
    const { markdown } = page('sphinx');
    expect(markdown).toContain(
      '## Preparing a call\n\nA call interface is described by an `ffi_cif` structure, which holds the argument types and the return type of the function to be called with `*args`.',
    );
    expect(markdown).toContain(
      '```python\nfrom ffi import ffi_cif\n\ndef call(*args):\n    # prepare once, call many times\n    return ffi_cif(*args)\n```',
    );
    expect(markdown).toContain('```console\n$ cc -c ffi.c\n$ cc -shared -o libffi.so ffi.o\n```');
    expect(markdown).toContain(
      '| Type | C type | Size |\n| --- | --- | --- |\n| `c_int` | int | 4 |\n| `c_char_p` | char \\* | 8 \\| 4 |',
    );
    expect(markdown).toContain(
      '**call(\\*args)**\n:   Calls the prepared function with the given arguments and returns its result.',
    );
    expect(markdown).not.toMatch(/¶|Navigation|Copyright/);
  });

  it('rustdoc: a bare `rust` class is the language; § anchors dropped; headings at their levels', () => {
    const { markdown } = page('rustdoc');
    expect(markdown).toContain(
      '## Examples\n\n```rust\nlet mut vec = Vec::new();\nvec.push(1);\nassert_eq!(vec.len(), 1);\n```',
    );
    expect(markdown).toContain('### Capacity and reallocation');
    expect(markdown).not.toContain('§');
    expect(markdown).not.toContain('method.push');
  });

  it('MkDocs Material: aligned table, code with a language, a line-numbered block without its numbers, a spanned table as HTML', () => {
    const { markdown } = page('mkdocs');
    expect(markdown).toContain(
      '| Key | Default | Meaning |\n| --- | ---: | --- |\n| `site_name` | none | The title of the site |\n| `nav` | \\[\\] | The pages,<br>in order |',
    );
    expect(markdown).toContain('```yaml\nsite_name: My Docs\nnav:\n  - index.md\n```');
    expect(markdown).toContain('```python\nimport yaml\nconfig = yaml.safe_load(open("mkdocs.yml"))\n```');
    expect(markdown).toContain('<table><thead><tr><th>Theme</th><th colspan="2">Supported</th></tr></thead>');
    expect(markdown).not.toMatch(/Home|¶|Made with/);
  });

  it('Docusaurus: Prism lines, copy button and hash links gone, nested list kept', () => {
    const { markdown } = page('docusaurus');
    expect(markdown).toContain(
      '## Requirements\n\n- Node.js 20\n- Two gigabytes of memory, and a little more for large sites:\n  - one more for the cache',
    );
    expect(markdown).toContain('```bash\nnpm install widget\n# then start it\nnpx widget start\n```');
    expect(markdown).toContain('Run `npx widget --help` to see every option, or press `q` to quit');
    expect(markdown).not.toMatch(/Copy|Introduction|\u200b/);
  });

  it('texinfo: <pre class="example"> with inline markup fenced as displayed; a table definition list', () => {
    const { markdown } = page('texinfo');
    expect(markdown).toContain('```\ncc -c file.c\n#  include <stdio.h>\ncc -o prog *.o\n```');
    expect(markdown).toContain(
      '**`-c`**\n:   Compile only; do not link.\n\n**`-o file`**\n:   Write the output to file.\n\n    The default is `a.out`.',
    );
    expect(markdown).not.toContain('Previous:');
  });
});

describe('articles', () => {
  it('a blog post with a comment thread longer than itself: the post only, no share bar or related posts', () => {
    const c = page('blog-comments');
    expect(c.markdown).toBe(
      '# Why our cache was slow\n\n' +
        'Last month the cache in front of our API started answering slower than the API itself. This post explains what we found, and why the fix was one line.\n\n' +
        'The cache kept every entry in one list and scanned it on each lookup. With a few thousand entries nobody noticed; with a million, each lookup took longer than a database query.\n\n' +
        'We replaced the list with a hash map keyed by the request, and lookups went back to a few microseconds.',
    );
    expect(c).toMatchObject({
      author: 'Ada Example',
      published: '2026-01-01T09:00:00.000Z',
      modified: '2026-01-02T10:00:00.000Z',
    });
    expect(c.words).toBe(81);
  });

  it('a news page: kicker and sign-in before the headline, captions, credits, author box, cookie notice and screen-reader text left out', () => {
    const para = (n: number) =>
      `<p>Paragraph ${n} of the story tells what happened at the harbour, who saw it, and what the council will do next week.</p>`;
    const c = extractContent(
      `<html lang="en"><head><title>Storm closes the harbour | Daily Example</title><meta property="og:site_name" content="Daily Example"></head>
       <body><div class="story"><a class="sign-in" href="/login">Sign In</a><p class="kicker">Breaking News</p>
       <h1>Storm closes the harbour</h1><span class="sr-only">Article continues below</span>
       ${para(1)}<figure><img src="/a.jpg" alt="Waves"><div class="image__caption">Waves over the wall (Image: Agency)</div></figure>
       ${para(2)}<p class="photoCredit">Photo: A. Photographer</p>${para(3)}
       <div class="promo-box"><p>The harbour reopens on Monday, the council said in a statement this morning.</p></div>
       <div class="author-bio"><p>Sam Writer covers the coast for the Daily Example.</p></div>
       <div class="cookie-notice"><p>We use cookies to improve your experience.</p></div></div></body></html>`,
      'https://news.example.org/storm.html',
    );
    expect(c.title).toBe('Storm closes the harbour');
    expect(c.markdown).toBe(
      [
        '# Storm closes the harbour',
        'Paragraph 1 of the story tells what happened at the harbour, who saw it, and what the council will do next week.',
        '![Waves](https://news.example.org/a.jpg)',
        'Paragraph 2 of the story tells what happened at the harbour, who saw it, and what the council will do next week.',
        'Paragraph 3 of the story tells what happened at the harbour, who saw it, and what the council will do next week.',
        // a promo class is not furniture by a part of its name: a box of the story's own text
        'The harbour reopens on Monday, the council said in a statement this morning.',
      ].join('\n\n'),
    );
  });

  it('the headline stays when much comes before it, or when it is not the title', () => {
    const long = `<p>${'A standfirst that is part of the story and longer than a kicker. '.repeat(8)}</p>`;
    const body = '<p>The story itself, told at some length so that it is the article of the page.</p>'.repeat(
      6,
    );
    const kept = extractContent(
      `<html><head><title>The title</title></head><body><article>${long}<h1>The title</h1>${body}</article></body></html>`,
      'https://x.example/a',
    );
    expect(kept.markdown).toContain('A standfirst that is part of the story');
    const other = extractContent(
      `<html><head><title>Page title</title></head><body><article><h1>Chapter one</h1>${body}</article></body></html>`,
      'https://x.example/b',
    );
    expect(other.markdown).toMatch(/^# Chapter one\n\nThe story itself/);
  });

  it('MathJax: inline and display TeX from its scripts, its rendered copies left out', () => {
    const { markdown } = page('mathjax');
    expect(markdown).toContain(
      'A random variable $x$ is normally distributed with mean $\\mu$ and variance $\\sigma^2$ when',
    );
    expect(markdown).toContain(
      '$$\nf(x) = \\frac{1}{\\sigma\\sqrt{2\\pi}} e^{-\\frac{(x-\\mu)^2}{2\\sigma^2}}\n$$',
    );
    expect(markdown).not.toContain('rendered');
  });

  it('KaTeX and MathML: TeX from the annotations, display math as $$', () => {
    const { markdown } = page('katex');
    expect(markdown).toContain("Euler's identity $e^{i\\pi} + 1 = 0$ links five fundamental constants");
    expect(markdown).toContain('$$\ne^{ix} = \\cos x + i \\sin x\n$$');
    expect(markdown).toContain('Setting $x = \\pi$ in the formula');
  });
});

describe('pages that are not articles', () => {
  it('a reference page that is mostly a table keeps the table whole, with its header row and the text around it', () => {
    const rows = Array.from(
      { length: 20 },
      (_, i) =>
        `<tr><td><code>E${i}</code></td><td><code>ERR_${i}</code></td><td>raised when step ${i} fails, with its cause.</td></tr>`,
    ).join('');
    const c = extractContent(
      `<html><head><title>Errors</title></head><body><main><h1>Errors</h1><p>Every error the library throws.</p>
       <div class="table"><p class="title"><strong>Table 1. Errors</strong></p><div class="table-contents">
       <table><thead><tr><th>Error</th><th>Code</th><th>When</th></tr></thead><tbody>${rows}</tbody></table></div></div></main></body></html>`,
      'https://docs.example.org/errors.html',
    );
    expect(c.markdown).toContain(
      'Every error the library throws.\n\n**Table 1. Errors**\n\n| Error | Code | When |\n| --- | --- | --- |\n| `E0` | `ERR_0` | raised when step 0 fails, with its cause. |\n| `E1` |',
    );
    expect(c.markdown).toContain('| `E19` | `ERR_19` | raised when step 19 fails, with its cause. |');
    // the table straight in <main>: Readability takes only its <tbody> (renamed), which goes back
    const bare = extractContent(
      `<html><head><title>Errors</title></head><body><main><h1>Errors</h1><p>Every error the library throws.</p>
       <table><thead><tr><th>Error</th><th>Code</th><th>When</th></tr></thead><tbody>${rows}</tbody></table></main></body></html>`,
      'https://docs.example.org/errors.html',
    );
    expect(bare.markdown).toContain(
      'Every error the library throws.\n\n| Error | Code | When |\n| --- | --- | --- |\n| `E0` | `ERR_0` | raised when step 0 fails, with its cause. |\n| `E1` |',
    );
    expect(bare.markdown).toContain('| `E19` | `ERR_19` | raised when step 19 fails, with its cause. |');
  });

  it('a chapter page (a paragraph and a table of contents) keeps them, not the footer of class "footer"', () => {
    const toc = ['Files', 'Directories', 'Processes', 'Signals', 'Clocks']
      .map(
        (t, i) =>
          `<li class="toctree-l1"><a href="m${i}.html"><code>m${i}</code> — ${t}</a><ul><li class="toctree-l2"><a href="m${i}.html#x">x</a></li></ul></li>`,
      )
      .join('');
    const c = extractContent(
      `<html><head><title>Operating System Services</title></head><body><div class="related" role="navigation"><a href="/">Home</a></div>
       <div class="document"><div class="body" role="main"><section><h1>Operating System Services</h1>
       <p>The modules of this chapter give access to what most operating systems offer, files and clocks among them. Here is an overview:</p>
       <div class="toctree-wrapper"><ul>${toc}</ul></div></section></div></div>
       <div class="footer">© Copyright 2001-2026, the authors. This page is licensed under the documentation license of the project.
       Examples, recipes and other code in it are licensed under a permissive license too. See the history and license for more.
       The project is run by a non-profit; please donate. Last updated on October 7, 2026. Created using a documentation generator.</div></body></html>`,
      'https://docs.example.org/library/allos.html',
    );
    expect(c.markdown).toContain('The modules of this chapter give access');
    expect(c.markdown).toContain('- [`m4` — Clocks](https://docs.example.org/library/m4.html)');
    expect(c.markdown).not.toContain('Copyright');
  });

  it('a module index (a table of links without a header row, beside a jump box) keeps every row', () => {
    // Readability takes the jump box and appends the table beside it renamed to a <div>
    const letters = 'abcdefghijklmnopqrstuvwxyz'.split('');
    const jump = letters.map((l) => `<a href="#cap-${l}"><strong>${l}</strong></a>`).join(' |\n');
    const module = (l: string, k: number) =>
      `<tr><td></td><td><a href="library/${l}mod${k}.html"><code><span>${l}mod${k}</span></code></a></td>` +
      `<td><em>Reading and writing the ${l} format, part ${k} of the set.</em></td></tr>`;
    const rows = letters
      .map(
        (l) =>
          `<tr><td></td><td></td><td></td></tr><tr id="cap-${l}"><td></td><td><strong>${l}</strong></td><td></td></tr>` +
          [1, 2, 3].map((k) => module(l, k)).join(''),
      )
      .join('\n');
    const c = extractContent(
      `<html><head><title>Module Index</title></head><body><div class="related" role="navigation"><a href="/">Home</a></div>
       <div class="document"><div class="body" role="main"><h1>Module Index</h1><div class="jumpbox">${jump}</div>
       <table class="indextable">${rows}</table></div></div><div class="footer">Footer text</div></body></html>`,
      'https://docs.example.org/py-modindex.html',
    );
    expect(c.markdown).toContain(
      '| [`amod1`](https://docs.example.org/library/amod1.html) | *Reading and writing the a format, part 1 of the set.* |',
    );
    expect(c.markdown).toContain(
      '| [`zmod3`](https://docs.example.org/library/zmod3.html) | *Reading and writing the z format, part 3 of the set.* |',
    );
    expect(c.links).toHaveLength(78);
  });

  it('an index page keeps its list of links, without navigation or footer', () => {
    const links = Array.from(
      { length: 12 },
      (_, i) => `<li><a href="/ch${i}.html">Chapter ${i}</a></li>`,
    ).join('');
    const c = extractContent(
      `<html><head><title>Contents</title></head><body><nav><a href="/">Home</a></nav><h1>Contents</h1><ul>${links}</ul><footer>Footer text</footer></body></html>`,
      'https://docs.example.org/index.html',
    );
    expect(c.markdown).toContain(
      '# Contents\n\n- [Chapter 0](https://docs.example.org/ch0.html)\n- [Chapter 1]',
    );
    expect(c.markdown).not.toMatch(/Home|Footer/);
    expect(c.links).toHaveLength(12);
  });

  it('a reference page (DocBook refentry) keeps its synopsis, which comes before the sections Readability takes', () => {
    // one long section (Readability's choice) and a shorter one beside it, as a real reference page has
    const section = (title: string, text: string, n: number) =>
      `<div class="refsect1"><h2>${title}</h2>${`<p>${text.repeat(4)}</p>`.repeat(n)}</div>`;
    const c = extractContent(
      `<html><head><title>SELECT</title></head><body><div class="navheader"><a href="/">Home</a></div>
       <div class="refentry"><div class="refnamediv"><h2>SELECT</h2><p>SELECT — retrieve rows</p></div>
       <div class="refsynopsisdiv"><h2>Synopsis</h2><pre class="synopsis">SELECT [ ALL | DISTINCT ] <em>expression</em>
    [ FROM <em>from_item</em> ]</pre></div>
       ${section('Description', 'SELECT retrieves rows from zero or more tables, with clauses, as described here. ', 4)}
       ${section('Parameters', 'Each clause of the command, in order, is described in this section, with examples. ', 30)}</div></body></html>`,
      'https://docs.example.org/sql-select.html',
    );
    expect(c.markdown).toMatch(
      /^# SELECT\n\n## Synopsis\n\n```\nSELECT \[ ALL \| DISTINCT \] expression\n {4}\[ FROM from_item \]\n```\n\n## Description\n\nSELECT retrieves/,
    );
    expect(c.markdown).toContain('## Parameters');
  });

  it("a README page (as the demo renders one) keeps the headings, paragraphs and code after Readability's last paragraph", () => {
    const c = page('readme-page');
    expect(c.markdown).toMatch(
      /## Install\n\nUsing npm:\n\n```sh\nnpm install --save-dev @example\/walker\n```\n\nor using yarn:\n\n```sh\nyarn add @example\/walker --dev\n```$/,
    );
  });

  it('the body without navigation replaces a choice of under 140 characters when it holds more than twice as much', () => {
    expect(preferBody(0, 1)).toBe(true);
    expect(preferBody(100, 201)).toBe(true);
    expect(preferBody(100, 200)).toBe(false);
    expect(preferBody(139, 1000)).toBe(true);
    expect(preferBody(140, 10_000)).toBe(false);
  });

  it('an empty page has no Markdown', () => {
    expect(
      extractContent('<html><head><title>T</title></head><body></body></html>', 'https://x.example/')
        .markdown,
    ).toBeNull();
  });
});
