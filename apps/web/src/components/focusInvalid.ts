/** Moves focus to a form's first invalid control after a refused submit, opening a collapsed section around it. */

/** Focuses the first `aria-invalid="true"` control inside `root` (opening closed `<details>` around it). */
export function focusFirstInvalid(root: HTMLElement | null): boolean {
  const el = root?.querySelector<HTMLElement>('[aria-invalid="true"]');
  if (!root || !el) return false;
  for (let p = el.parentElement; p && p !== root; p = p.parentElement)
    if (p instanceof HTMLDetailsElement) p.open = true;
  el.focus();
  return true;
}
