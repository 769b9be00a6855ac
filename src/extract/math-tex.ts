/**
 * Math as TeX: MathJax 2 scripts, KaTeX and MathML with a TeX annotation become placeholders
 * holding the TeX source, which the Markdown writer turns into `$…$` and `$$…$$`.
 */
import { classTokens, type DomDocument, type DomElement } from './content-dom.js';

/** Attribute of a math placeholder: `inline` or `display`; its text is the TeX source. */
export const MATH_ATTR = 'data-collector-math';

/** A TeX source written as a placeholder span that Readability keeps and the Markdown writer reads. */
function mathPlaceholder(document: DomDocument, tex: string, display: boolean): DomElement {
  const span = document.createElement('span');
  span.setAttribute(MATH_ATTR, display ? 'display' : 'inline');
  span.textContent = tex.trim();
  return span;
}

/** The TeX annotation of a MathML `<math>` (KaTeX's and MathJax's assistive MathML carry one). */
function texAnnotation(el: DomElement): string | null {
  const a = el.querySelector('annotation[encoding="application/x-tex"], annotation[encoding="TeX"]');
  const tex = a?.textContent?.trim();
  return tex ? tex : null;
}

/** MathJax 2's rendered output and previews (class tokens): the TeX of its scripts is the math. */
export const MATHJAX_RENDERED = new Set([
  'mathjax_preview',
  'mathjax',
  'mathjax_display',
  'mathjax_svg',
  'mathjax_chtml',
  'mathjax_svg_display',
]);

/**
 * Math as TeX placeholders: MathJax 2's `<script type="math/tex">` (`; mode=display` for display
 * math), KaTeX's `.katex` (TeX from its MathML annotation; display when inside
 * `.katex-display`), and MathML `<math>` with a TeX annotation (display for `display="block"`
 * or a MathJax 3 `<mjx-container display="true">`). MathML without TeX is left as it is.
 */
export function markMath(document: DomDocument, el: DomElement): void {
  if (el.localName === 'script') {
    const display = /mode\s*=\s*display/i.test(el.getAttribute('type') ?? '');
    el.replaceWith(mathPlaceholder(document, el.textContent ?? '', display));
    return;
  }
  const tex = texAnnotation(el);
  if (tex === null) return;
  if (el.localName === 'math') {
    const container = el.closest('mjx-container');
    const display = el.getAttribute('display') === 'block' || container?.getAttribute('display') === 'true';
    (container ?? el).replaceWith(mathPlaceholder(document, tex, display));
    return;
  }
  const wrap =
    el.parentElement !== null && classTokens(el.parentElement).includes('katex-display')
      ? el.parentElement
      : null;
  (wrap ?? el).replaceWith(mathPlaceholder(document, tex, wrap !== null));
}
