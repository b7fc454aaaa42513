/**
 * Tabs as links (so each tab has its own URL), with the ARIA tab pattern and arrow-key navigation; in a window
 * too narrow for every tab the bar scrolls sideways, and keeps the current tab in view.
 */
import { type KeyboardEvent, useLayoutEffect, useRef } from "react";
import { Link } from "react-router";

/** Scrolls the bar `list` sideways (only: the page stays where it is) so that `tab` is wholly in view. */
function keepInView(list: HTMLElement, tab: HTMLElement): void {
  const bar = list.getBoundingClientRect();
  const box = tab.getBoundingClientRect();
  const margin = 8;
  if (box.right > bar.right) list.scrollLeft += box.right - bar.right + margin;
  else if (box.left < bar.left) list.scrollLeft -= bar.left - box.left + margin;
}

/**
 * A tab bar; `href` builds each tab's link (for opening in a new tab or copying), `onSelect` switches tabs in
 * place from the address as it is at the click.
 */
export function Tabs<T extends string>({
  tabs,
  current,
  href,
  onSelect,
  label,
}: {
  tabs: { id: T; label: string; hint?: string }[];
  current: T;
  href: (id: T) => string;
  onSelect?: (id: T) => void;
  label: string;
}) {
  const list = useRef<HTMLDivElement>(null);
  // on load and whenever another tab is chosen (by click, keyboard or the address)
  useLayoutEffect(() => {
    const tab = list.current?.querySelector<HTMLElement>(`[id="tab-${current}"]`);
    if (list.current && tab) keepInView(list.current, tab);
  }, [current]);
  const onKey = (e: KeyboardEvent<HTMLElement>) => {
    if (e.key !== "ArrowRight" && e.key !== "ArrowLeft") return;
    const links = [...(e.currentTarget.querySelectorAll("[role=tab]") as NodeListOf<HTMLElement>)];
    const i = links.indexOf(document.activeElement as HTMLElement);
    if (i === -1) return;
    const next = links[(i + (e.key === "ArrowRight" ? 1 : links.length - 1)) % links.length];
    next.focus();
    e.preventDefault();
  };
  return (
    <div ref={list} className="tabs" role="tablist" aria-label={label} onKeyDown={onKey}>
      {tabs.map((t) => (
        <Link
          key={t.id}
          role="tab"
          id={`tab-${t.id}`}
          aria-selected={t.id === current}
          aria-controls="tabpanel"
          className={`tab${t.id === current ? " tab-current" : ""}`}
          to={href(t.id)}
          replace
          title={t.hint}
          onClick={(e) => {
            if (!onSelect || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
            e.preventDefault();
            onSelect(t.id);
          }}
        >
          {t.label}
        </Link>
      ))}
    </div>
  );
}
