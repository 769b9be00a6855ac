import { describe, expect, it } from 'vitest';
import {
  COMMENT_NODE,
  ELEMENT_NODE,
  LightDomError,
  type LightElement,
  type LightNode,
  type LightParent,
  styleProperty,
  TEXT_NODE,
} from '../../src/extract/light-dom.js';
import { parseHtmlDocument } from '../../src/extract/light-dom-parse.js';
import { VOID_ELEMENTS } from '../../src/extract/light-dom-serialize.js';

/** The tree under `root` as `name[child child]`, text as "data", comments as <!--data-->. */
function shape(root: LightParent): string {
  return root.childNodes.map(describeNode).join(' ');
}

function describeNode(n: LightNode): string {
  if (n.nodeType === TEXT_NODE) return JSON.stringify((n as unknown as { data: string }).data);
  if (n.nodeType === COMMENT_NODE) return `<!--${(n as unknown as { data: string }).data}-->`;
  const el = n as LightElement;
  const attrs =
    el.attrs.length === 0
      ? ''
      : `(${el
          .getAttributeNames()
          .map((a) => `${a}=${el.getAttribute(a)}`)
          .join(',')})`;
  return el.firstChild === null ? `${el.localName}${attrs}` : `${el.localName}${attrs}[${shape(el)}]`;
}

/**
 * Checks every link of the tree under `root` against its arrays: each child's parent, siblings
 * and position; first/last child; `children` as the element children; nothing reachable twice.
 */
function assertConsistent(root: LightParent): void {
  const seen = new Set<LightNode>();
  const visit = (parent: LightParent): void => {
    const nodes = parent.childNodes;
    expect(parent.firstChild).toBe(nodes[0] ?? null);
    expect(parent.lastChild).toBe(nodes[nodes.length - 1] ?? null);
    expect(parent.children).toEqual(nodes.filter((n) => n.nodeType === ELEMENT_NODE));
    nodes.forEach((n, i) => {
      expect(seen.has(n)).toBe(false);
      seen.add(n);
      expect(n.parentNode).toBe(parent);
      expect(n.previousSibling).toBe(nodes[i - 1] ?? null);
      expect(n.nextSibling).toBe(nodes[i + 1] ?? null);
      if (n.nodeType === ELEMENT_NODE) visit(n as LightElement);
      else expect(n.firstChild).toBeNull();
    });
  };
  visit(root);
}

const body = (html: string) => {
  const doc = parseHtmlDocument(`<html><head></head><body>${html}</body></html>`);
  return { doc, body: doc.body! };
};

describe('parsing: the tree htmlparser2 says (linkedom 0.18 built the same)', () => {
  it('implies end tags as the parser does: a <p> closes a <p>, <li> an <li>, a block a paragraph', () => {
    const doc = parseHtmlDocument('<p>a<p>b<ul><li>c<li>d</ul><p>e<div>f</div>');
    expect(shape(doc)).toBe('p["a"] p["b"] ul[li["c"] li["d"]] p["e"] div["f"]');
    assertConsistent(doc);
  });

  it('void elements hold no children, <x/> is not self-closing outside svg and math', () => {
    const doc = parseHtmlDocument(
      '<div>a<br>b<img src="i.png">c<span/>d</div><svg><path d="M0"/><g></g></svg>',
    );
    expect(shape(doc)).toBe('div["a" br "b" img(src=i.png) "c" span["d"]] svg[path(d=M0) g]');
  });

  it('synthesizes no html, head or body; document.head and body are made where linkedom made them', () => {
    const doc = parseHtmlDocument('\n<div id="x">text</div><p>more</p>');
    expect(shape(doc)).toBe('"\\n" div(id=x)["text"] p["more"]');
    expect(doc.documentElement?.getAttribute('id')).toBe('x');
    const b = doc.body!;
    // the head is put first in the document element, the body right after it
    expect(shape(doc)).toBe('"\\n" div(id=x)[head body "text"] p["more"]');
    expect(b.parentNode).toBe(doc.documentElement);
    expect(doc.body).toBe(b);
    assertConsistent(doc);
  });

  it('makes a head when the document element does not start with one, a body when none follows the head', () => {
    const doc = parseHtmlDocument('<html><title>T</title><p>x</p></html>');
    expect(doc.title).toBe('');
    expect(shape(doc)).toBe('html[head title["T"] p["x"]]');
    expect(doc.body?.localName).toBe('body');
    expect(shape(doc)).toBe('html[head body title["T"] p["x"]]');
    const withHead = parseHtmlDocument('<html><head></head><div>x</div></html>');
    expect(withHead.body?.nextElementSibling?.localName).toBe('div');
    expect(shape(withHead)).toBe('html[head body div["x"]]');
  });

  it('finds the head and body the page has, without making any', () => {
    const doc = parseHtmlDocument(
      '<!doctype html><html><head><title>T &amp; U</title></head><body><p>x</p></body></html>',
    );
    expect(doc.head?.localName).toBe('head');
    expect(doc.body?.firstElementChild?.localName).toBe('p');
    expect(doc.title).toBe('T & U');
    expect(shape(doc)).toBe('html[head[title["T " "&" " U"]] body[p["x"]]]');
  });

  it('has no head, body or title without a document element', () => {
    const doc = parseHtmlDocument('just text');
    expect(doc.documentElement).toBeNull();
    expect(doc.head).toBeNull();
    expect(doc.body).toBeNull();
    expect(doc.title).toBe('');
  });

  it('splits text where a character reference was decoded; raw text is one node', () => {
    const { body: b } = body(
      '<p>a &amp; b&lt;</p><script>if (a < b && c) {}</script><textarea>x &lt; <b>y</textarea>',
    );
    expect(shape(b)).toBe('p["a " "&" " b" "<"] script["if (a < b && c) {}"] textarea["x " "<" " <b>y"]');
  });

  it('keeps attribute names as written, in source order, the first of duplicates; decodes values', () => {
    const { body: b } = body('<a HREF="u" data-x=1 title="a &amp; b" data-x=2 hidden>t</a>');
    const a = b.firstElementChild!;
    expect(a.getAttributeNames()).toEqual(['HREF', 'data-x', 'title', 'hidden']);
    expect(a.getAttribute('href')).toBeNull();
    expect(a.getAttribute('HREF')).toBe('u');
    expect(a.getAttribute('data-x')).toBe('1');
    expect(a.getAttribute('title')).toBe('a & b');
    expect(a.getAttribute('hidden')).toBe('');
  });

  it('makes comments comment nodes and no node of the doctype', () => {
    const doc = parseHtmlDocument('<!DOCTYPE html><!-- c --><p>x<!--d--></p>');
    expect(shape(doc)).toBe('<!-- c --> p["x" <!--d-->]');
    expect(doc.firstChild?.nodeType).toBe(COMMENT_NODE);
  });

  it('parses deep nesting without overflowing the stack (textContent, clone, serialization, queries)', () => {
    const depth = 20_000;
    const { body: b } = body(`${'<span>'.repeat(depth)}x`);
    expect(b.textContent).toBe('x');
    expect(b.cloneNode(true).textContent).toBe('x');
    expect(b.innerHTML.length).toBe(depth * '<span></span>'.length + 1);
    expect(b.querySelectorAll('span').length).toBe(depth);
  });

  it('textContent, once read, follows every change below: text, insertion, removal, a move, innerHTML', () => {
    const { doc, body: b } = body(
      '<div id="a"><p>one <b>two</b></p><p>three</p></div><div id="c">four</div>',
    );
    const a = b.querySelector('#a') as LightElement;
    const c = b.querySelector('#c') as LightElement;
    const [p1, p2] = a.querySelectorAll('p');
    const bold = a.querySelector('b') as LightElement;
    expect([b.textContent, a.textContent, p1.textContent, bold.textContent]).toEqual([
      'one twothreefour',
      'one twothree',
      'one two',
      'two',
    ]);
    (bold.firstChild as unknown as { data: string }).data = '2';
    expect([b.textContent, a.textContent, p1.textContent]).toEqual(['one 2threefour', 'one 2three', 'one 2']);
    bold.appendChild(doc.createTextNode('!'));
    expect(a.textContent).toBe('one 2!three');
    p2.remove();
    expect([b.textContent, a.textContent]).toEqual(['one 2!four', 'one 2!']);
    c.appendChild(p1);
    expect([b.textContent, a.textContent, c.textContent]).toEqual(['fourone 2!', '', 'fourone 2!']);
    c.innerHTML = '<i>five</i>';
    expect([b.textContent, c.textContent, p1.textContent]).toEqual(['five', 'five', 'one 2!']);
    (c.firstChild as LightElement).textContent = 'six';
    expect(b.textContent).toBe('six');
  });
});

describe('serialization (HTML Standard "serializing HTML fragments")', () => {
  it('escapes text and attribute values; void elements get no end tag; raw text stays raw', () => {
    const { body: b } = body(
      '<p title="a&amp;b &quot;q&quot; <x> \u00a0">1 &lt; 2 &amp; 3&nbsp;&gt;</p><br><img src="a.png" alt=""><style>a > b {}</style><!--c-->',
    );
    expect(b.innerHTML).toBe(
      '<p title="a&amp;b &quot;q&quot; &lt;x&gt; &nbsp;">1 &lt; 2 &amp; 3&nbsp;&gt;</p><br><img src="a.png" alt=""><style>a > b {}</style><!--c-->',
    );
  });

  it('writes every void element without an end tag and the text of every raw-text element as it is', () => {
    const { doc } = body('');
    for (const name of VOID_ELEMENTS) {
      const el = doc.createElement(name);
      el.appendChild(doc.createTextNode('x'));
      expect(el.outerHTML).toBe(`<${name}>`);
    }
    expect(VOID_ELEMENTS.size).toBe(18);
    for (const name of ['style', 'script', 'xmp', 'iframe', 'noembed', 'noframes', 'plaintext']) {
      const el = doc.createElement(name);
      el.appendChild(doc.createTextNode('a < b & c'));
      expect(el.outerHTML).toBe(`<${name}>a < b & c</${name}>`);
    }
    const ns = doc.createElement('noscript');
    ns.appendChild(doc.createTextNode('a < b'));
    expect(ns.outerHTML).toBe('<noscript>a &lt; b</noscript>');
  });

  it('writes names as created and attributes as set (an empty class is kept)', () => {
    const { doc } = body('');
    const div = doc.createElement('DIV');
    div.setAttribute('class', '');
    div.id = 'x';
    div.appendChild(doc.createTextNode('t'));
    expect(div.outerHTML).toBe('<DIV class="" id="x">t</DIV>');
  });

  it('round-trips: innerHTML parsed back gives the same tree and the same HTML', () => {
    const html =
      '<div class="a b"><p>x &amp; <a href="/p?a=1&amp;copy=2">y</a></p><table><tbody><tr><td>1</td></tr></tbody></table><pre>  z\n</pre><noscript><img src="n.png"></noscript></div>';
    const { body: b } = body(html);
    const before = shape(b);
    const serialized = b.innerHTML;
    b.innerHTML = serialized;
    expect(shape(b)).toBe(before);
    expect(b.innerHTML).toBe(serialized);
    expect(b.querySelector('a')?.getAttribute('href')).toBe('/p?a=1&copy=2');
    assertConsistent(b);
  });

  it('innerHTML set replaces the children; the old ones are detached', () => {
    const { body: b } = body('<p id="old">o</p>');
    const old = b.firstElementChild!;
    b.innerHTML = '<i>n</i>t';
    expect(shape(b)).toBe('i["n"] "t"');
    expect(old.parentNode).toBeNull();
    expect(old.isConnected).toBe(false);
    expect(b.firstElementChild?.isConnected).toBe(true);
    assertConsistent(b);
  });
});

describe('selectors (css-select over the light tree)', () => {
  const page = () =>
    body(
      '<div id="a" class="x y"><p data-k="1">one</p><p>two <span class="x">s</span></p></div><ul><li>l</li></ul><template><p>t</p></template>',
    );

  it('matches tags, ids, classes, attributes and combinators, in tree order', () => {
    const { doc, body: b } = page();
    expect(b.querySelectorAll('p').map((p) => p.textContent)).toEqual(['one', 'two s']);
    expect(b.querySelectorAll('.x').map((e) => e.localName)).toEqual(['div', 'span']);
    expect(b.querySelectorAll('#a > p:not([data-k])').map((e) => e.textContent)).toEqual(['two s']);
    expect(b.querySelectorAll('div span, li').map((e) => e.localName)).toEqual(['span', 'li']);
    expect(b.querySelectorAll('LI , P').map((e) => e.localName)).toEqual(['p', 'p', 'li']);
    expect(b.querySelector('[data-k="1"]')?.textContent).toBe('one');
    expect(b.querySelector('p + p')?.textContent).toBe('two s');
    expect(doc.querySelector('body > ul > li')?.textContent).toBe('l');
  });

  it('does not look inside <template>, though the template itself matches', () => {
    const { body: b } = page();
    expect(b.querySelectorAll('template, template p').map((e) => e.localName)).toEqual(['template']);
    expect(b.querySelectorAll('p').length).toBe(2);
    const tpl = b.lastElementChild!;
    b.insertBefore(tpl, b.firstChild);
    expect(b.querySelector('p')?.textContent).toBe('one');
    expect(b.getElementsByTagName('p').length).toBe(3);
  });

  it('structural pseudo-classes count elements only; :has and :empty look at children', () => {
    const { body: b } = body('<div>text<p>1</p> <p>2</p><!--c--></div><ul><li></li><li>x</li></ul>');
    expect(b.querySelectorAll('p:first-child').map((e) => e.textContent)).toEqual(['1']);
    expect(b.querySelectorAll('p:last-child').map((e) => e.textContent)).toEqual(['2']);
    expect(b.querySelectorAll('p ~ p').map((e) => e.textContent)).toEqual(['2']);
    expect(b.querySelectorAll('div:has(p)').length).toBe(1);
    expect(b.querySelectorAll('li:empty').length).toBe(1);
  });

  it(':scope is the element the query starts from', () => {
    const { body: b } = page();
    const div = b.firstElementChild!;
    expect(div.querySelectorAll(':scope > p').length).toBe(2);
    expect(div.querySelector(':scope > span')).toBeNull();
    expect(b.querySelectorAll(':scope > p').length).toBe(0);
  });

  it('compares tag names case-insensitively, attribute names as written', () => {
    const { doc, body: b } = page();
    const div = doc.createElement('DIV');
    div.setAttribute('Data-Y', '1');
    b.appendChild(div);
    expect(b.querySelector('div:last-child')).toBe(div);
    expect(div.matches('div')).toBe(true);
    expect(div.matches('[data-y]')).toBe(false);
    expect(div.matches('[Data-Y]')).toBe(false);
    div.remove();
  });

  it('closest looks from the element itself up', () => {
    const { body: b } = page();
    const span = b.querySelector('span')!;
    expect(span.closest('.x')).toBe(span);
    expect(span.closest('div')?.id).toBe('a');
    expect(span.closest('ul')).toBeNull();
  });

  it('throws SyntaxError naming a bad selector', () => {
    const { body: b } = page();
    expect(() => b.querySelectorAll('p[')).toThrow(SyntaxError);
    expect(() => b.querySelector('a ! b')).toThrow(/invalid selector "a ! b"/);
  });
});

describe('mutation keeps parent, children and siblings consistent', () => {
  it('appendChild moves a node from its old parent, to the end', () => {
    const { body: b } = body('<div id="s">a<i>b</i>c</div><div id="t">d</div>');
    const [s, t] = b.children;
    const i = s.querySelector('i')!;
    expect(t.appendChild(i)).toBe(i);
    expect(shape(b)).toBe('div(id=s)["a" "c"] div(id=t)["d" i["b"]]');
    assertConsistent(b);
  });

  it('insertBefore puts a node before its reference, or at the end for null', () => {
    const { doc, body: b } = body('<p>1</p><p>3</p>');
    const [p1, p3] = b.children;
    const p2 = doc.createElement('p');
    p2.textContent = '2';
    b.insertBefore(p2, p3);
    b.insertBefore(p1, null);
    expect(shape(b)).toBe('p["2"] p["3"] p["1"]');
    b.insertBefore(p3, p3); // before itself: stays
    expect(shape(b)).toBe('p["2"] p["3"] p["1"]');
    assertConsistent(b);
  });

  it("replaceChild puts the node in the old one's place, also when the node is inside the old one", () => {
    const { body: b } = body('<div id="w"><p>in</p></div><span>after</span>');
    const w = b.firstElementChild!;
    const p = w.firstElementChild!;
    // Readability's "a div holding one p becomes that p"
    expect(b.replaceChild(p, w)).toBe(w);
    expect(shape(b)).toBe('p["in"] span["after"]');
    expect(w.parentNode).toBeNull();
    expect(w.firstChild).toBeNull();
    // the next sibling replacing its previous one
    const span = b.lastElementChild!;
    b.replaceChild(span, p);
    expect(shape(b)).toBe('span["after"]');
    assertConsistent(b);
  });

  it('remove, removeChild, replaceWith, prepend, after', () => {
    const { doc, body: b } = body('<a>1</a><b>2</b><i>3</i>');
    const [a, bb, i] = b.children;
    a.remove();
    expect(b.removeChild(i)).toBe(i);
    expect(shape(b)).toBe('b["2"]');
    bb.replaceWith(i, 'x');
    expect(shape(b)).toBe('i["3"] "x"');
    b.prepend(a);
    i.after(doc.createComment('c'));
    expect(shape(b)).toBe('a["1"] i["3"] <!--c--> "x"');
    assertConsistent(b);
  });

  it('append, prepend, before, after and replaceWith take strings as text, in the order given, from wherever the nodes were', () => {
    const { body: b } = body('<a>1</a><b>2</b><i>3</i>');
    const [a, bb, i] = b.children;
    b.append('t', a);
    expect(shape(b)).toBe('b["2"] i["3"] "t" a["1"]');
    b.prepend(i, 's');
    expect(shape(b)).toBe('i["3"] "s" b["2"] "t" a["1"]');
    bb.after(a, i);
    expect(shape(b)).toBe('"s" b["2"] a["1"] i["3"] "t"');
    a.before(bb, 'u');
    expect(shape(b)).toBe('"s" b["2"] "u" a["1"] i["3"] "t"');
    i.replaceWith('v', a, i);
    expect(shape(b)).toBe('"s" b["2"] "u" "v" a["1"] i["3"] "t"');
    b.replaceChildren('w', bb);
    expect(shape(b)).toBe('"w" b["2"]');
    expect(a.parentNode).toBeNull();
    assertConsistent(b);
  });

  it('before, after and replaceWith given their own neighbours', () => {
    const { body: b } = body('<a>1</a><b>2</b><i>3</i>');
    const [a, bb, i] = b.children;
    a.before('s');
    expect(shape(b)).toBe('"s" a["1"] b["2"] i["3"]');
    a.after(bb, 'x');
    expect(shape(b)).toBe('"s" a["1"] b["2"] "x" i["3"]');
    bb.replaceWith(i, bb);
    expect(shape(b)).toBe('"s" a["1"] i["3"] b["2"] "x"');
    i.before(a, 'y');
    expect(shape(b)).toBe('"s" a["1"] "y" i["3"] b["2"] "x"');
    assertConsistent(b);
  });

  it('remove, replaceWith, before and after of a node without a parent do nothing', () => {
    const { doc } = body('');
    const d = doc.createElement('div');
    const i = doc.createElement('i');
    d.remove();
    d.replaceWith(i);
    d.before('x');
    d.after(i);
    expect([d.parentNode, d.previousSibling, d.nextSibling, i.parentNode]).toEqual([null, null, null, null]);
  });

  it('errors carry the DOM Standard exception name and leave the tree as it was', () => {
    const { doc, body: b } = body('<p>x</p><i>y</i>');
    const [p, i] = b.children;
    let error: unknown;
    try {
      p.insertBefore(doc.createElement('a'), i);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(LightDomError);
    expect((error as LightDomError).name).toBe('LightDomError');
    expect((error as LightDomError).domName).toBe('NotFoundError');
    expect((error as LightDomError).message).toMatch(/not a child of this node/);
    expect(() => b.appendChild(doc)).toThrow(/HierarchyRequestError: a document cannot be inserted/);
    expect(() => b.replaceChild(doc.createElement('a'), p.firstChild!)).toThrow(
      /NotFoundError: the node to replace is not a child/,
    );
    expect(() => p.removeChild(i)).toThrow(/NotFoundError: the node to remove is not a child/);
    expect(() => i.appendChild(b)).toThrow(/HierarchyRequestError: a node cannot be inserted into itself/);
    expect(shape(b)).toBe('p["x"] i["y"]');
    assertConsistent(b);
  });

  it('refuses to insert a node into itself or its descendant, or before a node of another parent', () => {
    const { body: b } = body('<div><p><span>x</span></p></div><i>y</i>');
    const div = b.firstElementChild!;
    const span = b.querySelector('span')!;
    expect(() => span.appendChild(div)).toThrow(LightDomError);
    expect(() => div.appendChild(div)).toThrow(/HierarchyRequestError/);
    expect(() => div.insertBefore(b.lastElementChild!, span)).toThrow(/NotFoundError/);
    expect(() => div.removeChild(span)).toThrow(/NotFoundError/);
    expect(shape(b)).toBe('div[p[span["x"]]] i["y"]');
    assertConsistent(b);
  });

  it('childNodes and children are snapshots: arrays read before a change stay as they were', () => {
    const { body: b } = body('<p>1</p><p>2</p>');
    const kids = b.children;
    const nodes = b.childNodes;
    expect(b.children).toBe(kids); // kept while nothing changes
    expect(b.childNodes).toBe(nodes);
    for (const k of kids) k.remove();
    expect(kids.map((k) => k.textContent)).toEqual(['1', '2']);
    expect(nodes.length).toBe(2);
    expect(b.children).toEqual([]);
    expect(b.childNodes).toEqual([]);
  });

  it('textContent set replaces the children by one text node, none for the empty string', () => {
    const { body: b } = body('<p>a<b>b</b></p>');
    const p = b.firstElementChild!;
    p.textContent = 'x < y';
    expect(shape(p)).toBe('"x < y"');
    expect(p.innerHTML).toBe('x &lt; y');
    p.textContent = '';
    expect(p.firstChild).toBeNull();
    p.textContent = 'y';
    p.textContent = null;
    expect(p.firstChild).toBeNull();
    assertConsistent(b);
  });

  it('cloneNode copies attributes and, deep, descendants; changes to the copy leave the original', () => {
    const { body: b } = body('<div class="c" id="d"><p>x<b>y</b></p>z</div>');
    const div = b.firstElementChild!;
    const shallow = div.cloneNode();
    expect(shallow.outerHTML).toBe('<div class="c" id="d"></div>');
    const deep = div.cloneNode(true);
    expect(deep.outerHTML).toBe(div.outerHTML);
    expect(deep.parentNode).toBeNull();
    deep.setAttribute('class', 'other');
    deep.querySelector('b')!.remove();
    expect(div.outerHTML).toBe('<div class="c" id="d"><p>x<b>y</b></p>z</div>');
    assertConsistent(deep);
  });
});

describe('element and document properties', () => {
  it('tagName and nodeName uppercase the name as created; getElementsByTagName matches it as created or uppercased', () => {
    const { doc, body: b } = body('<p>x</p>');
    const div = doc.createElement('DIV');
    b.appendChild(div);
    expect([div.tagName, div.nodeName, div.localName]).toEqual(['DIV', 'DIV', 'DIV']);
    expect(b.getElementsByTagName('div')).toEqual([]);
    expect(b.getElementsByTagName('DIV')).toEqual([div]);
    expect(b.getElementsByTagName('P').length).toBe(1);
    expect(b.getElementsByTagName('p').length).toBe(1);
    expect(b.getElementsByTagName('*').length).toBe(2);
  });

  it('element siblings and children skip text and comments; text and comments have no children', () => {
    const { doc, body: b } = body('t<a>1</a> <!--c--> <b>2</b>u<!--d-->');
    const [a, bb] = b.children;
    expect(a.nextElementSibling).toBe(bb);
    expect(bb.previousElementSibling).toBe(a);
    expect(a.previousElementSibling).toBeNull();
    expect(bb.nextElementSibling).toBeNull();
    expect(b.firstElementChild).toBe(a);
    expect(b.lastElementChild).toBe(bb);
    expect(b.childElementCount).toBe(2);
    const text = b.firstChild!;
    const comment = b.lastChild!;
    expect([text.nodeName, comment.nodeName, a.nodeName, doc.nodeName]).toEqual([
      '#text',
      '#comment',
      'A',
      '#document',
    ]);
    expect([text.nodeType, comment.nodeType, a.nodeType, doc.nodeType]).toEqual([3, 8, 1, 9]);
    expect([text.nodeValue, comment.nodeValue, a.nodeValue]).toEqual(['t', 'd', null]);
    expect(text.childNodes).toEqual([]);
    expect(text.firstChild).toBeNull();
    expect(text.hasChildNodes()).toBe(false);
    expect(a.hasChildNodes()).toBe(true);
    expect(text.nextElementSibling).toBe(a);
  });

  it('setAttribute changes an attribute in place, appends a new one; removeAttribute removes only the one named', () => {
    const { body: b } = body('<p a="1" b="2" c="3">x</p>');
    const p = b.firstElementChild!;
    p.setAttribute('b', 'two');
    p.setAttribute('d', '4');
    expect(p.attributes.map((x) => `${x.name}=${x.value}`)).toEqual(['a=1', 'b=two', 'c=3', 'd=4']);
    p.removeAttribute('b');
    p.removeAttribute('missing');
    expect(p.getAttributeNames()).toEqual(['a', 'c', 'd']);
    expect(p.getAttributeNode('missing')).toBeNull();
    expect(p.getAttributeNode('c')?.value).toBe('3');
    expect(p.hasAttributes()).toBe(true);
    expect(b.hasAttributes()).toBe(false);
  });

  it('className and id read and write their attributes; absent, they are empty and getAttribute is null', () => {
    const { body: b } = body('<p class=" a  b ">x</p><i>y</i>');
    const [p, i] = b.children;
    expect(p.className).toBe(' a  b ');
    expect(i.className).toBe('');
    expect(i.getAttribute('class')).toBeNull();
    i.className = 'page';
    i.id = 'readability-page-1';
    expect(i.getAttributeNames()).toEqual(['class', 'id']);
    i.removeAttribute('class');
    expect(i.hasAttribute('class')).toBe(false);
  });

  it('attributes are copies in order; setAttributeNode sets in place and returns the replaced one', () => {
    const { body: b } = body('<img src="a" alt="x" data-src="b">');
    const img = b.firstElementChild!;
    const attrs = img.attributes;
    expect(attrs.map((a) => `${a.name}=${a.value}`)).toEqual(['src=a', 'alt=x', 'data-src=b']);
    const other = img.cloneNode();
    other.setAttribute('alt', 'old');
    const replaced = other.setAttributeNode(attrs[1].cloneNode());
    expect(replaced?.value).toBe('old');
    expect(other.getAttributeNames()).toEqual(['src', 'alt', 'data-src']);
    expect(other.getAttribute('alt')).toBe('x');
  });

  it('src and srcset reflect their attributes on images only', () => {
    const { body: b } = body('<img srcset="a 1x"><figure src="f"></figure><img src="i.png">');
    const [img, figure, img2] = b.children;
    expect(img.src).toBe('');
    expect(img2.src).toBe('i.png');
    expect(img2.srcset).toBe('');
    expect(figure.srcset).toBeUndefined();
    const { body: more } = body(
      '<iframe src="f.html"></iframe><script src="s.js"></script><source src="v.mp4" srcset="v 1x">',
    );
    expect(more.children.map((e) => e.src)).toEqual(['f.html', 's.js', 'v.mp4']);
    expect(more.children.map((e) => e.srcset)).toEqual([undefined, undefined, 'v 1x']);
    expect(img.srcset).toBe('a 1x');
    expect(figure.src).toBeUndefined();
  });

  it('style reads the last declaration of a property as written', () => {
    expect(styleProperty('color: red; display : none ;', 'display')).toBe('none');
    expect(styleProperty('display:none;display:block', 'display')).toBe('block');
    expect(styleProperty('display:none;display:', 'display')).toBe('none');
    expect(styleProperty('DISPLAY:none', 'display')).toBe('');
    expect(styleProperty('background:url(a:b)', 'background')).toBe('url(a:b)');
    expect(styleProperty('mydisplay:none', 'display')).toBe('');
    expect(styleProperty('display', 'display')).toBe('');
    expect(styleProperty(null, 'display')).toBe('');
    const { body: b } = body('<p style="visibility: hidden">x</p><i>y</i>');
    expect(b.firstElementChild!.style.visibility).toBe('hidden');
    expect(b.lastElementChild!.style.display).toBe('');
    expect(b.firstElementChild!.style.display).toBe('');
    b.lastElementChild!.setAttribute('style', 'display:none');
    expect(b.lastElementChild!.style.display).toBe('none');
    expect(b.lastElementChild!.style.getPropertyValue('display')).toBe('none');
  });

  it('textContent joins the descendant texts (not comments); a document has none', () => {
    const { doc, body: b } = body('<p>a<!--c--><b>b<i>c</i></b>d</p>');
    expect(b.textContent).toBe('abcd');
    expect(b.firstChild?.firstChild?.textContent).toBe('a');
    expect(doc.textContent).toBeNull();
  });

  it('baseURI is the first <base href> as written, documentURI null', () => {
    expect(parseHtmlDocument('<head><base href="/x/"><base href="/y/"></head>').baseURI).toBe('/x/');
    const doc = parseHtmlDocument('<p>x</p>');
    expect(doc.baseURI).toBeNull();
    expect(doc.documentURI).toBeNull();
  });

  it('baseURI and documentURI are both the url its reader sets', () => {
    const doc = parseHtmlDocument('<head><base href="/x/"></head>');
    doc.url = 'https://example.com/x/';
    expect([doc.baseURI, doc.documentURI]).toEqual(['https://example.com/x/', 'https://example.com/x/']);
  });

  it('isConnected, contains, parentElement', () => {
    const { doc, body: b } = body('<p><b>x</b></p>');
    const bold = b.querySelector('b')!;
    expect(bold.isConnected).toBe(true);
    expect(b.contains(bold)).toBe(true);
    expect(bold.contains(b)).toBe(false);
    expect(b.contains(b)).toBe(true);
    expect(doc.documentElement?.parentElement).toBeNull();
    expect(doc.documentElement?.parentNode).toBe(doc);
    const detached = doc.createElement('div');
    expect(detached.parentElement).toBeNull();
    detached.innerHTML = '<i>x</i>';
    expect(detached.firstChild?.ownerDocument).toBe(doc);
    detached.appendChild(bold);
    expect(bold.isConnected).toBe(false);
    expect(bold.ownerDocument).toBe(doc);
    expect(doc.ownerDocument).toBeNull();
  });
});
