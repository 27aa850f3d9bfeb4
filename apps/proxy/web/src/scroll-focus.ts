// Keyboard access to boxes that scroll (WCAG 2.1.1; axe "scrollable-region-focusable"): a
// table, code block or graph whose content is larger than its box (at 390 px most tables
// scroll sideways, docs/ui.md "Narrow screens") gets tabindex=0, so Tab reaches it and the
// arrow keys scroll it; one that stops scrolling loses the tabindex this module gave it.
// One watcher for the whole app, rather than a wrapper around every table of every page.

const SCROLLERS = "table, pre, .graph";
/** Marks an element whose tabindex this module set (and may take away again). */
const MARK = "data-scroll-focus";

function scrolls(element: HTMLElement): boolean {
  return element.scrollWidth > element.clientWidth + 1 || element.scrollHeight > element.clientHeight + 1;
}

function mark(root: HTMLElement): void {
  for (const element of root.querySelectorAll<HTMLElement>(SCROLLERS)) {
    const ours = element.hasAttribute(MARK);
    if (scrolls(element)) {
      if (!element.hasAttribute("tabindex")) {
        element.tabIndex = 0;
        element.setAttribute(MARK, "");
      }
    } else if (ours) {
      element.removeAttribute("tabindex");
      element.removeAttribute(MARK);
    }
  }
}

/**
 * Watches `root` from now on: every change of its content (a MutationObserver callback runs
 * before the browser paints, so a box is focusable when it is first shown) and every resize.
 * Only childList and text changes are watched: the tabindex set here does not wake it again.
 */
export function watchScrollers(root: HTMLElement): () => void {
  const check = () => mark(root);
  const observer = new MutationObserver(check);
  observer.observe(root, { childList: true, subtree: true, characterData: true });
  window.addEventListener("resize", check);
  check();
  return () => {
    observer.disconnect();
    window.removeEventListener("resize", check);
  };
}
