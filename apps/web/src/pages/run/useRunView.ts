/** The run view's state, read from and written to the URL. */
import { useCallback, useMemo } from "react";
import { useNavigate, useSearchParams } from "react-router";
import { type RunView, readRunView, writeRunView } from "../../transforms/urlState";

/**
 * Current view and a setter that merges a patch into the URL (replacing the history entry). The patch is applied
 * to the address as it is now, not as it was at the last render, so two quick changes (an item, then a tab)
 * both stick.
 */
export function useRunView(): [RunView, (patch: Partial<RunView>) => void, URLSearchParams] {
  const [sp] = useSearchParams();
  const navigate = useNavigate();
  const view = useMemo(() => readRunView(sp), [sp]);
  const set = useCallback(
    (patch: Partial<RunView>) => {
      const next = writeRunView(new URLSearchParams(window.location.search), patch).toString();
      navigate({ search: next ? `?${next}` : "" }, { replace: true });
    },
    [navigate],
  );
  return [view, set, sp];
}
