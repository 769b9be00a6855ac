/**
 * CSS selectors over a light DOM (`light-dom.ts`): css-select's compiler with an adapter for the
 * light tree, in HTML mode (Selectors Level 4 as css-select implements it: tag names and the
 * HTML Standard's case-insensitive attributes compared case-insensitively). Each selector string
 * is compiled once and its matcher kept (a page asks the same few selectors thousands of times).
 */
import { compile, type Options } from 'css-select';

/** A node as the selector engine reads it (`light-dom.ts` nodes are these). */
export interface SelectNode {
  readonly nodeType: number;
  readonly parentNode: SelectNode | null;
  readonly childNodes: readonly SelectNode[];
  readonly textContent: string | null;
}

/** An element as the selector engine reads it. */
export interface SelectElement extends SelectNode {
  /** The element's name lowercased (what type selectors compare in an HTML document). */
  readonly lowerName: string;
  readonly previousElementSibling: SelectElement | null;
  getAttribute(name: string): string | null;
  hasAttribute(name: string): boolean;
}

/** css-select's adapter interface (its `Options.adapter`). */
type Adapter = NonNullable<Options<SelectNode, SelectElement>['adapter']>;

/** A compiled selector: whether an element matches it. */
export type Matcher = (el: SelectElement) => boolean;

const ELEMENT_NODE = 1;

const isTag = (node: SelectNode): node is SelectElement => node.nodeType === ELEMENT_NODE;

/** Nodes without duplicates and without those inside another of them. */
function removeSubsets(nodes: SelectNode[]): SelectNode[] {
  const set = new Set(nodes);
  return nodes.filter((node, i) => {
    if (nodes.indexOf(node) !== i) return false;
    for (let p = node.parentNode; p !== null; p = p.parentNode) if (set.has(p)) return false;
    return true;
  });
}

/** css-select's view of the light tree. */
export const LIGHT_ADAPTER: Adapter = {
  isTag,
  getAttributeValue: (el, name) => el.getAttribute(name) ?? undefined,
  getChildren: (node) => node.childNodes as SelectNode[],
  getName: (el) => el.lowerName,
  getParent: (el) => el.parentNode,
  getSiblings: (node) => (node.parentNode === null ? [node] : (node.parentNode.childNodes as SelectNode[])),
  prevElementSibling: (node) => (isTag(node) ? node.previousElementSibling : null),
  getText: (node) => node.textContent ?? '',
  hasAttrib: (el, name) => el.hasAttribute(name),
  removeSubsets,
};

const OPTIONS = { adapter: LIGHT_ADAPTER, xmlMode: false } as const;

/**
 * Matchers by selector string (selectors without `:scope`, which depends on where the query
 * starts), at most {@link MAX_COMPILED}: some selectors are made per page (an attribute's value),
 * and a page thread runs for days.
 */
const compiled = new Map<string, Matcher>();
/** Most matchers kept; the map starts afresh when full. */
const MAX_COMPILED = 512;

/** css-select's compile, its errors as SyntaxError naming the selector (the DOM Standard's `SyntaxError`). */
function compileOrThrow(selectors: string, scope: SelectElement | null): Matcher {
  try {
    return compile<SelectNode, SelectElement>(selectors, {
      ...OPTIONS,
      context: scope ?? undefined,
    }) as Matcher;
  } catch (e) {
    throw new SyntaxError(`invalid selector ${JSON.stringify(selectors)}: ${(e as Error).message}`);
  }
}

/** A selector list of type selectors only (`h1,h2`, `img, picture`): what Readability asks most. */
const TAG_LIST = /^\s*[a-zA-Z][a-zA-Z0-9-]*(?:\s*,\s*[a-zA-Z][a-zA-Z0-9-]*)*\s*$/;

/** The matcher of a list of type selectors: the element's lowercased name among theirs (as css-select compares them). */
function tagListMatcher(selectors: string): Matcher {
  const names = selectors.split(',').map((s) => s.trim().toLowerCase());
  if (names.length === 1) {
    const [name] = names;
    return (el) => el.lowerName === name;
  }
  const set = new Set(names);
  return (el) => set.has(el.lowerName);
}

/**
 * The matcher of a selector list.
 * @param scope the element a query starts from, for `:scope`.
 * @throws SyntaxError when `selectors` is not a valid selector list.
 */
export function matcher(selectors: string, scope: SelectElement | null = null): Matcher {
  if (selectors.includes(':scope')) return compileOrThrow(selectors, scope);
  let m = compiled.get(selectors);
  if (m === undefined) {
    m = TAG_LIST.test(selectors) ? tagListMatcher(selectors) : compileOrThrow(selectors, null);
    if (compiled.size >= MAX_COMPILED) compiled.clear();
    compiled.set(selectors, m);
  }
  return m;
}
