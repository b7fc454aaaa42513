/** The run view's state, read from and written to the URL. */
import { useCallback, useMemo } from "react";
import { useSearchParams } from "react-router";
import { type RunView, readRunView, writeRunView } from "../../transforms/urlState";

/** Current view and a setter that merges a patch into the URL (replacing the history entry). */
export function useRunView(): [RunView, (patch: Partial<RunView>) => void, URLSearchParams] {
  const [sp, setSp] = useSearchParams();
  const view = useMemo(() => readRunView(sp), [sp]);
  const set = useCallback(
    (patch: Partial<RunView>) => setSp((old) => writeRunView(old, patch), { replace: true }),
    [setSp],
  );
  return [view, set, sp];
}
