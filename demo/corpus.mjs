/**
 * The demo's documentation corpus, built from what `npm ci` installed: the README and the
 * `docs/**.md` of every package in `node_modules/`, rendered to HTML pages (marked) that link to
 * each other — an index of the packages, a page per package with its README and a list of its
 * documents, a page per document — like a small real documentation site, and nothing in it is
 * copied into the repository.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Marked } from 'marked';

/** Markdown files larger than this are left out (a generated API dump is not documentation). */
const MAX_MARKDOWN_BYTES = 512 * 1024;

/** `docs/` folders are read this many levels deep. */
const MAX_DOCS_DEPTH = 3;

/** @returns the package directories under `node_modules` (scoped ones included), sorted. */
function packageDirs(nodeModules) {
  const dirs = [];
  for (const name of fs.readdirSync(nodeModules).sort()) {
    if (name.startsWith('.')) continue;
    const dir = path.join(nodeModules, name);
    if (name.startsWith('@')) {
      for (const sub of fs.readdirSync(dir).sort())
        dirs.push({ name: `${name}/${sub}`, dir: path.join(dir, sub) });
    } else {
      dirs.push({ name, dir });
    }
  }
  return dirs.filter((d) => fs.existsSync(path.join(d.dir, 'package.json')));
}

/** The package's README (any case), or null. */
function readmeOf(dir) {
  const f = fs.readdirSync(dir).find((n) => /^readme\.(md|markdown)$/i.test(n));
  return f ? path.join(dir, f) : null;
}

/** Markdown files under `<dir>/docs`, relative to `dir`, sorted. */
function docsOf(dir) {
  const out = [];
  const walk = (rel, depth) => {
    const abs = path.join(dir, rel);
    let entries;
    try {
      entries = fs.readdirSync(abs, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      const r = path.posix.join(rel, e.name);
      if (e.isDirectory() && depth < MAX_DOCS_DEPTH) walk(r, depth + 1);
      else if (e.isFile() && /\.md$/i.test(e.name)) out.push(r);
    }
  };
  walk('docs', 1);
  return out;
}

function escapeHtml(s) {
  return s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);
}

/** A whole HTML page around `body`. */
function page(title, body, depth) {
  const up = '../'.repeat(depth);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${escapeHtml(title)}</title>
<link rel="stylesheet" href="${up}style.css">
</head>
<body>
<nav><a href="${up}">All packages</a></nav>
<main>
${body}
</main>
</body>
</html>
`;
}

const STYLE = `body { font: 16px/1.5 system-ui, sans-serif; max-width: 50rem; margin: 2rem auto; padding: 0 1rem; }
pre { background: #f4f4f4; padding: .5rem; overflow-x: auto; }
nav { margin-bottom: 1rem; }
`;

/**
 * The output path (under `docs/`) of a Markdown file of a package: the README becomes the
 * package's `index.html`, `docs/x.md` becomes `docs/x.html`.
 */
function pagePath(pkg, rel) {
  return rel === null ? `${pkg}/index.html` : `${pkg}/${rel.replace(/\.md$/i, '.html')}`;
}

/**
 * Build the corpus into `outDir` (which must not exist or be empty): `outDir/docs/...` and
 * `outDir/robots.txt`.
 * @param nodeModules the `node_modules` folder to read.
 * @returns the number of HTML pages written (every one reachable from `docs/`).
 */
export function buildCorpus(nodeModules, outDir) {
  const docsDir = path.join(outDir, 'docs');
  fs.mkdirSync(docsDir, { recursive: true });
  const packages = [];
  for (const { name, dir } of packageDirs(nodeModules)) {
    const readme = readmeOf(dir);
    const docs = docsOf(dir).filter((r) => fs.statSync(path.join(dir, r)).size <= MAX_MARKDOWN_BYTES);
    if (readme === null && docs.length === 0) continue;
    const { version, description } = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
    packages.push({
      name,
      dir,
      readme,
      docs,
      version: String(version ?? ''),
      description: String(description ?? ''),
    });
  }
  let pages = 0;
  const write = (rel, html) => {
    const file = path.join(docsDir, rel);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, html);
    pages++;
  };
  for (const p of packages) {
    // Relative links to Markdown files of this package that are in the corpus point to their
    // pages; other relative links (source files, documents not installed) would only be broken
    // links here, so they become plain text; absolute ones stay (out of the crawl's scope).
    const inCorpus = new Set(p.docs);
    /** The href to write for `href` on the page of `fromRel`, or null to drop the link. */
    const fixHref = (href, fromRel) => {
      if (/^[a-z][a-z0-9+.-]*:|^\/\/|^#/i.test(href)) return href;
      const [target, hash] = href.split('#');
      // `/docs/x.md` is relative to the repository's root on a forge: the package's root here.
      const from = path.posix.dirname(fromRel);
      const resolved = path.posix.normalize(
        target.startsWith('/') ? target.slice(1) : path.posix.join(from, target),
      );
      if (!inCorpus.has(resolved)) return null;
      const rel = path.posix.relative(from, resolved).replace(/\.md$/i, '.html');
      return hash === undefined ? rel : `${rel}#${hash}`;
    };
    const render = (markdown, fromRel) => {
      const marked = new Marked({
        walkTokens(token) {
          if (token.type === 'link') {
            const href = fixHref(token.href, fromRel);
            if (href === null) token.notInCorpus = true;
            else token.href = href;
          } else if (token.type === 'html') {
            token.text = token.text.replace(/\shref="([^"]*)"/gi, (_m, href) => {
              const fixed = fixHref(href, fromRel);
              return fixed === null ? '' : ` href="${escapeHtml(fixed)}"`;
            });
          }
        },
        renderer: {
          link(token) {
            return token.notInCorpus ? this.parser.parseInline(token.tokens) : false;
          },
        },
      });
      return marked.parse(markdown, { async: false });
    };
    const depth = p.name.split('/').length;
    const list = p.docs.map((r) => `<li><a href="${r.replace(/\.md$/i, '.html')}">${escapeHtml(r)}</a></li>`);
    const readmeHtml = p.readme ? render(fs.readFileSync(p.readme, 'utf8'), 'README.md') : '';
    const docsList = list.length ? `<h2>Documents</h2>\n<ul>\n${list.join('\n')}\n</ul>\n` : '';
    const head = `<p><strong>${escapeHtml(p.name)}</strong> ${escapeHtml(p.version)} — ${escapeHtml(p.description)}</p>\n`;
    write(pagePath(p.name, null), page(p.name, head + docsList + readmeHtml, depth));
    for (const r of p.docs) {
      const title = `${p.name}: ${r}`;
      write(
        pagePath(p.name, r),
        page(title, render(fs.readFileSync(path.join(p.dir, r), 'utf8'), r), depth + r.split('/').length - 1),
      );
    }
  }
  const items = packages.map(
    (p) =>
      `<li><a href="${p.name}/">${escapeHtml(p.name)}</a> ${escapeHtml(p.version)} — ${escapeHtml(p.description)}</li>`,
  );
  write(
    'index.html',
    page('Package documentation', `<h1>Package documentation</h1>\n<ul>\n${items.join('\n')}\n</ul>\n`, 0),
  );
  fs.writeFileSync(path.join(docsDir, 'style.css'), STYLE);
  fs.writeFileSync(path.join(outDir, 'robots.txt'), 'User-agent: *\nDisallow: /private/\n');
  return pages;
}
