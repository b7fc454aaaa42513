/**
 * Scrolling boxes a keyboard can scroll: a box whose content is wider or taller than itself takes focus (tabIndex 0),
 * so arrow keys scroll it, and is a named region a screen reader announces; a box that fits is neither.
 */
import { type ReactNode, type RefObject, useLayoutEffect, useRef, useState } from "react";

/** True when the element's content overflows it (it scrolls), measured again whenever it or its content resizes. */
function useOverflows(ref: RefObject<HTMLElement | null>): boolean {
  const [overflows, setOverflows] = useState(false);
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    const measure = () =>
      setOverflows(el.scrollWidth > el.clientWidth + 1 || el.scrollHeight > el.clientHeight + 1);
    measure();
    if (typeof ResizeObserver === "undefined") return;
    const observer = new ResizeObserver(measure);
    observer.observe(el);
    for (const child of el.children) observer.observe(child);
    return () => observer.disconnect();
  }, [ref]);
  return overflows;
}

/** The props that make a scrolling box a focusable region named `label`. */
interface ScrollFocusProps {
  tabIndex?: number;
  role?: "region";
  "aria-label"?: string;
}

/**
 * The ref and props of a box with `overflow: auto` named `label`: while its content overflows it, a focusable region
 * of that name; while it fits, nothing (no tab stop, no landmark).
 */
export function useScrollFocus<T extends HTMLElement>(
  label: string,
): { ref: RefObject<T | null>; props: ScrollFocusProps } {
  const ref = useRef<T>(null);
  const overflows = useOverflows(ref);
  return { ref, props: overflows ? { tabIndex: 0, role: "region", "aria-label": label } : {} };
}

/** A horizontally scrolling box for a wide table, named `label` (e.g. the table's caption). */
export function ScrollRegion({ label, children }: { label: string; children: ReactNode }) {
  const { ref, props } = useScrollFocus<HTMLDivElement>(label);
  return (
    <div ref={ref} className="table-scroll" {...props}>
      {children}
    </div>
  );
}
