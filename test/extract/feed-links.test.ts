import { describe, expect, it } from 'vitest';
import { discoverFeeds } from '../../src/extract/feed-links.js';

const PAGE = 'http://blog.example/2024/05/post/';

describe('discoverFeeds', () => {
  it('finds RSS, Atom and JSON Feed alternates in the head, resolved, each once', () => {
    const html = `<!doctype html><html><head>
      <link rel="stylesheet" href="/s.css">
      <LINK REL="Alternate" TYPE="application/rss+xml" title="Posts" href="/feed/">
      <link rel="alternate" type="application/atom+xml; charset=utf-8" href="atom.xml">
      <link rel="alternate feed" type="application/feed+json" href="https://blog.example/feed.json?a=1&amp;b=2">
      <link rel="alternate" type="application/rss+xml" href="/feed/">
      <link rel="alternate" type="text/html" hreflang="de" href="/de/">
      <link rel="alternate" type="application/json" href="/wp-json/wp/v2/posts/1">
      <link rel="feed" type="application/rss+xml" href="/not-alternate/">
    </head><body></body></html>`;
    expect(discoverFeeds(html, PAGE)).toEqual([
      { url: 'http://blog.example/feed/', format: 'rss', title: 'Posts' },
      { url: 'http://blog.example/2024/05/post/atom.xml', format: 'atom', title: null },
      { url: 'https://blog.example/feed.json?a=1&b=2', format: 'json', title: null },
    ]);
  });

  it('resolves against <base href>', () => {
    const html =
      '<head><base href="http://cdn.example/x/"><link rel=alternate type=application/rss+xml href=rss></head>';
    expect(discoverFeeds(html, PAGE).map((f) => f.url)).toEqual(['http://cdn.example/x/rss']);
  });

  it('stops at <body>', () => {
    const html = '<head></head><body><link rel="alternate" type="application/rss+xml" href="/late"></body>';
    expect(discoverFeeds(html, PAGE)).toEqual([]);
  });

  it('ignores links without href and non-http schemes', () => {
    const html =
      '<link rel="alternate" type="application/rss+xml"><link rel="alternate" type="application/rss+xml" href="javascript:x()">';
    expect(discoverFeeds(html, PAGE)).toEqual([]);
  });
});
