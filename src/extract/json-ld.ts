/**
 * A page's schema.org JSON-LD (`<script type="application/ld+json">`) read into its nodes, for
 * the metadata extractors: which node describes the page, and `@id` references followed.
 * Not a JSON-LD processor (no `@context` expansion): it reads the compact form that sites publish.
 */
import type { Doc } from './content-dom.js';

/** One JSON-LD node object, as parsed. */
export type LdNode = Record<string, unknown>;

/** The JSON-LD nodes of one page, with their `@id` index. */
export interface LdGraph {
  /**
   * Node objects in document order: each block's top-level object(s), the members of any
   * `@graph` (nested ones too), and a node's `mainEntity` object.
   */
  nodes: LdNode[];
  /** Nodes by `@id`, the first with each id (a bare `{ "@id" }` reference is not indexed). */
  byId: Map<string, LdNode>;
}

/** schema.org types of an article (`Article`, `NewsArticle`, `BlogPosting`, `TechArticle`, `Report`...). */
export const ARTICLE_TYPE = /Article$|Posting$|^Report$/;
/** schema.org types of a web page (`WebPage`, `AboutPage`, `CollectionPage`, `ItemPage`...). */
export const WEB_PAGE_TYPE = /Page$/;
/** schema.org `WebSite`. */
export const WEB_SITE_TYPE = /^WebSite$/;

/** Most nodes read from one page: a bound on the work a generated page can cause. */
const MAX_NODES = 2000;

/**
 * Reads every `<script type="application/ld+json">` of a document (W3C JSON-LD 1.1, "Embedding
 * JSON-LD in HTML Documents"). Lenient the way pages need: a `<![CDATA[ ]]>` or `<!-- -->` wrapper
 * is removed, and a block that fails to parse is retried with its control characters (raw line
 * breaks inside strings) turned into spaces; a block that still fails is skipped. Never throws.
 */
export function readJsonLd(document: Doc): LdGraph {
  const blocks: string[] = [];
  for (const script of Array.from(document.querySelectorAll('script[type]')))
    if (isJsonLdType(script.getAttribute('type')!)) blocks.push(script.textContent ?? '');
  return parseJsonLd(blocks);
}

/** Whether a `<script type>` value is JSON-LD's `application/ld+json` (parameters ignored). */
export function isJsonLdType(type: string): boolean {
  return type.split(';')[0].trim().toLowerCase() === 'application/ld+json';
}

/**
 * The graph of JSON-LD blocks given as text (each a `<script type="application/ld+json">`'s
 * content, in document order), read as {@link readJsonLd} reads them. Never throws.
 */
export function parseJsonLd(blocks: Iterable<string>): LdGraph {
  const graph: LdGraph = { nodes: [], byId: new Map() };
  for (const block of blocks) {
    const parsed = parseBlock(block);
    if (parsed !== undefined) collect(parsed, graph);
  }
  return graph;
}

function parseBlock(text: string): unknown {
  const body = text.replace(/^\s*(?:<!\[CDATA\[|<!--)|(?:\]\]>|-->)\s*$/g, '');
  try {
    return JSON.parse(body);
  } catch {
    try {
      return JSON.parse(body.replace(/[\u0000-\u001f]+/g, ' '));
    } catch {
      return undefined;
    }
  }
}

function isNode(value: unknown): value is LdNode {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function collect(value: unknown, graph: LdGraph): void {
  if (graph.nodes.length >= MAX_NODES) return;
  if (Array.isArray(value)) {
    for (const v of value) collect(v, graph);
    return;
  }
  if (!isNode(value)) return;
  const keys = Object.keys(value);
  // a block that is only a @graph container (with its @context) is not itself a node
  if (!keys.every((k) => k === '@context' || k === '@graph')) {
    graph.nodes.push(value);
    const id = value['@id'];
    if (typeof id === 'string' && keys.some((k) => k !== '@id') && !graph.byId.has(id))
      graph.byId.set(id, value);
  }
  if (Array.isArray(value['@graph']) || isNode(value['@graph'])) collect(value['@graph'], graph);
  if (isNode(value.mainEntity)) collect(value.mainEntity, graph);
}

/**
 * A node's types, local names only: `"schema:NewsArticle"` and `"https://schema.org/NewsArticle"`
 * are both `NewsArticle`.
 */
function localTypes(node: LdNode): string[] {
  const type = node['@type'];
  return (Array.isArray(type) ? type : [type])
    .filter((t): t is string => typeof t === 'string')
    .map((t) => t.replace(/^.*[/#:]/, ''));
}

/** The first node (in document order) with a type whose local name matches `pattern`, or null. */
export function firstOfType(graph: LdGraph, pattern: RegExp): LdNode | null {
  return graph.nodes.find((n) => localTypes(n).some((t) => pattern.test(t))) ?? null;
}

/**
 * A value with its `@id` references followed one level: a node `{ "@id": x, ... }` whose id names
 * another node of the page becomes that node, overlaid with the reference's own properties (as
 * Yoast's `@graph` writes `"author": { "@id": ".../#/schema/person/1" }`). Arrays are followed
 * member by member; anything else is returned as is.
 */
export function deref(graph: LdGraph, value: unknown): unknown {
  if (Array.isArray(value)) return value.map((v) => deref(graph, v));
  if (!isNode(value) || typeof value['@id'] !== 'string') return value;
  const target = graph.byId.get(value['@id']);
  return target === undefined || target === value ? value : { ...target, ...value };
}
