import { describe, expect, it } from 'vitest';
import { absolutize, parseDocument } from '../../src/extract/content.js';
import { prepareContent } from '../../src/extract/content-prep.js';
import { codeSpan, escapeMarkdown, fenceFor, toMarkdown } from '../../src/extract/markdown.js';
import { countWords, markdownToText } from '../../src/extract/markdown-text.js';

const BASE = 'https://docs.example.org/guide/page.html';

/** The Markdown of an HTML fragment, prepared as for extraction, without the main-content choice. */
function md(fragment: string): string {
  const document = parseDocument(`<!doctype html><html><head></head><body>${fragment}</body></html>`);
  prepareContent(document);
  const body = document.body!;
  absolutize(body, BASE);
  return toMarkdown(body);
}

describe('tables', () => {
  it('a table with a header row is a GFM table; pipes escaped, line breaks as <br>, code kept', () => {
    expect(
      md(`<table><thead><tr><th>Setting</th><th>Before</th><th>After</th></tr></thead>
        <tbody><tr><td>a | b</td><td>c<br>d</td><td><code>x</code></td></tr>
        <tr><td><p>e</p><p>f</p></td><td>g</td><td></td></tr></tbody></table>`),
    ).toBe(
      '| Setting | Before | After |\n| --- | --- | --- |\n| a \\| b | c<br>d | `x` |\n| e<br>f | g |  |',
    );
  });

  it('without <th>, the first row is the header; short rows are padded; alignment is kept', () => {
    expect(
      md(`<table><caption>Sizes</caption><tr><td>Type</td><td align="right">Bytes</td></tr>
        <tr><td>int</td><td align="right">4</td></tr><tr><td>long</td></tr></table>`),
    ).toBe('Sizes\n\n| Type | Bytes |\n| --- | ---: |\n| int | 4 |\n| long |  |');
  });

  it('a data table GFM cannot express (spans, blocks in cells) is kept as HTML', () => {
    expect(
      md(`<table class="x"><thead><tr><th>Theme</th><th colspan="2">Supported</th></tr></thead>
        <tbody><tr><td>material</td><td>yes</td><td style="color:red">since 1.0</td></tr></tbody></table>`),
    ).toBe(
      '<table><thead><tr><th>Theme</th><th colspan="2">Supported</th></tr></thead><tbody><tr><td>material</td><td>yes</td><td>since 1.0</td></tr></tbody></table>',
    );
    expect(md('<table><tr><th>Step</th></tr><tr><td><ul><li>a</li></ul></td></tr></table>')).toMatch(
      /^<table>.*<ul><li>a<\/li><\/ul>/,
    );
  });

  it('a layout table (no header, blocks in cells or one column) is written as its content', () => {
    expect(
      md('<table><tr><td><p>First paragraph.</p></td></tr><tr><td><p>Second.</p></td></tr></table>'),
    ).toBe('First paragraph.\n\nSecond.');
  });
});

describe('code', () => {
  it('fences <pre><code> with the language of its class', () => {
    for (const cls of [
      'language-python',
      'lang-python',
      'python',
      'sourceCode python',
      'brush: python; gutter: true',
    ]) {
      expect(md(`<pre><code class="${cls}">print(1)</code></pre>`)).toBe('```python\nprint(1)\n```');
    }
    expect(md('<pre data-lang="ts"><code>let a = 1;</code></pre>')).toBe('```ts\nlet a = 1;\n```');
  });

  it('fences a <pre> without <code> (Pygments, texinfo), language from a wrapper, spans flattened, text exact', () => {
    expect(
      md(`<div class="highlight-c notranslate"><div class="highlight"><pre><span></span><span class="cp">#  include</span> <span class="cpf">&lt;stdio.h&gt;</span>
<span class="kt">int</span> <span class="n">ffi_cif</span><span class="p">;</span>

<span class="o">*</span><span class="n">args</span>
    <span class="c1">// indented</span>
</pre></div></div>`),
    ).toBe('```c\n#  include <stdio.h>\nint ffi_cif;\n\n*args\n    // indented\n```');
    expect(md('<pre class="example">cc <b>-o</b> <var>prog</var> -c x.c\n- not a list</pre>')).toBe(
      '```\ncc -o prog -c x.c\n- not a list\n```',
    );
  });

  it('reads lines written as elements with <br> (Docusaurus/Prism), drops copy buttons and line-number gutters', () => {
    expect(
      md(
        `<div class="language-bash theme-code-block"><pre class="prism-code language-bash"><code><span class="token-line"><span class="token function">npm</span> i<br></span><span class="token-line"><span class="token comment"># done</span><br></span></code></pre><button class="copyButton">Copy</button></div>`,
      ),
    ).toBe('```bash\nnpm i\n# done\n```');
    expect(
      md(`<table class="highlighttable"><tr><td class="linenos"><div class="linenodiv"><pre>1
2</pre></div></td><td class="code"><div class="highlight"><pre><span></span>a = 1
b = 2
</pre></div></td></tr></table>`),
    ).toBe('```\na = 1\nb = 2\n```');
  });

  it('a fence is longer than any backtick run inside', () => {
    expect(md('<pre><code class="language-md">```js\nx\n```</code></pre>')).toBe(
      '````md\n```js\nx\n```\n````',
    );
    expect(fenceFor('a ````` b')).toBe('``````');
  });

  it('inline code keeps short snippets, and <kbd>/<samp>; backticks inside get longer delimiters', () => {
    expect(md('<p>Use <code>x</code>, <code>*p</code>, <kbd>Ctrl</kbd> or <code>a`b</code>.</p>')).toBe(
      'Use `x`, `*p`, `Ctrl` or ``a`b``.',
    );
    expect(codeSpan('`tick')).toBe('`` `tick ``');
  });
});

describe('headings, lists, definitions', () => {
  it('headings keep their level and lose permalink anchors (¶, §, #, an icon)', () => {
    expect(
      md(`<h1 class="title">Top<a class="headerlink" href="#top">¶</a></h1><h2 id="a">Section <a href="#a">§</a></h2>
        <h3>Sub<a class="hash-link" href="#sub">&#8203;</a></h3><h4>With <a href="/x">a link</a></h4>`),
    ).toBe('# Top\n\n## Section\n\n### Sub\n\n#### With [a link](https://docs.example.org/x)');
  });

  it('nested lists as authored, and the editor style of a list beside its <li>', () => {
    expect(md('<ul><li>one<ul><li>inner</li></ul></li><li>two</li></ul>')).toBe('- one\n  - inner\n- two');
    expect(md('<ul><li>one</li><ul><li>nested</li></ul><li>two</li></ul>')).toBe('- one\n  - nested\n- two');
    expect(md('<ol start="3"><li>three</li><li>four<ol><li>a</li></ol></li></ol>')).toBe(
      '3. three\n4. four\n   1. a',
    );
  });

  it('definition lists as a bold term and an indented definition', () => {
    expect(
      md(
        '<dl><dt>-c</dt><dd><p>Compile only.</p></dd><dt><code>-o file</code></dt><dd><p>Output.</p><p>Default a.out.</p></dd><dt>f(*args)</dt><dd>Call.</dd></dl>',
      ),
    ).toBe(
      '**-c**\n:   Compile only.\n\n**`-o file`**\n:   Output.\n\n    Default a.out.\n\n**f(\\*args)**\n:   Call.',
    );
  });
});

describe('math', () => {
  it('MathJax scripts, KaTeX and MathML with TeX annotations become $…$ and $$…$$', () => {
    expect(
      md(
        `<p>Let <script type="math/tex">x^2</script> and</p><span class="MathJax_Preview">x</span><script type="math/tex; mode=display">\\int f</script>`,
      ),
    ).toBe('Let $x^2$ and\n\n$$\n\\int f\n$$');
    expect(
      md(`<p>Euler <span class="katex"><span class="katex-mathml"><math><semantics><mi>e</mi><annotation encoding="application/x-tex">e^{i\\pi}</annotation></semantics></math></span><span class="katex-html">e</span></span>.</p>
        <span class="katex-display"><span class="katex"><span class="katex-mathml"><math display="block"><semantics><mi>e</mi><annotation encoding="application/x-tex">a = b</annotation></semantics></math></span></span></span>
        <p><math display="block"><semantics><mi>y</mi><annotation encoding="application/x-tex">y = 1</annotation></semantics></math></p>`),
    ).toBe('Euler $e^{i\\pi}$.\n\n$$\na = b\n$$\n\n$$\ny = 1\n$$');
  });
});

describe('images and links', () => {
  it('images keep alt text and an absolute URL; lazy ones are resolved from data-src or srcset', () => {
    expect(md('<p><img src="img/a.png" alt="A [diagram]"></p>')).toBe(
      '![A \\[diagram\\]](https://docs.example.org/guide/img/a.png)',
    );
    expect(md('<p><img src="data:image/gif;base64,R0lGOD" data-src="/b.png" alt="b"></p>')).toBe(
      '![b](https://docs.example.org/b.png)',
    );
    expect(md('<p><img srcset="/s.png 320w, /l.png 1280w, /m.png 640w" alt="c"></p>')).toBe(
      '![c](https://docs.example.org/l.png)',
    );
  });

  it('links are absolute; icon-only links say nothing; in-page links are their text', () => {
    expect(
      md(
        '<p>See <a href="../other.html">other</a>, <a href="/x"><i class="icon"></i></a><a href="#s">this section</a>.</p>',
      ),
    ).toBe('See [other](https://docs.example.org/other.html), this section.');
  });
});

describe('escaping and text', () => {
  it('prose keeps intraword underscores, escapes what would become Markdown', () => {
    expect(escapeMarkdown('ffi_cif and _emph_ *star* [x] # h')).toBe(
      'ffi_cif and \\_emph\\_ \\*star\\* \\[x\\] # h',
    );
    expect(md('<p>- not a list</p><p>1. not a list</p><p># not a heading</p>')).toBe(
      '\\- not a list\n\n1\\. not a list\n\n\\# not a heading',
    );
  });

  it('markdownToText drops link and image targets, the headline when asked, list numbers and escapes', () => {
    const m =
      '# Title\n\nSee [the docs](https://x.example/a_(b)) ![alt](https://x.example/i.png) and <https://x.example/>.\n\n1. one\n2. snake\\_case';
    expect(markdownToText(m, true)).toBe('See the docs  and .\n\none\nsnake_case');
    expect(markdownToText(m)).toMatch(/^# Title/);
    expect(countWords('Hello, wörld — 42 times_two')).toBe(4);
  });

  it('countWords counts runs of letters, digits, marks and _ over the code points, as /[\\p{L}\\p{N}\\p{M}_]+/gu matches', () => {
    const texts = [
      '',
      '  ',
      'e\u0301te\u0301 à',
      '١٢٣ ٤',
      '日本語 テキスト',
      'a\u{1F600}b',
      '\u{1D41B}\u{1D428}ld x',
      'x\uD800y \uDC00',
      '_ - _',
    ];
    const counts = texts.map(countWords);
    expect(counts).toEqual([0, 0, 2, 2, 2, 2, 2, 2, 2]);
    expect(counts).toEqual(texts.map((t) => t.match(/[\p{L}\p{N}\p{M}_]+/gu)?.length ?? 0));
  });
});
