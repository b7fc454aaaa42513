/** Patches the address's search parameters from their current value (not the last render's). */
import { useCallback } from "react";
import { useNavigate } from "react-router";

/** Returns `patch(values, {push})`: empty values remove a parameter; history entries are replaced unless `push`. */
export function useSearchPatch(): (
  values: Record<string, string | undefined>,
  opts?: { push?: boolean },
) => void {
  const navigate = useNavigate();
  return useCallback(
    (values, opts = {}) => {
      const next = new URLSearchParams(window.location.search);
      for (const [k, v] of Object.entries(values)) {
        if (v) next.set(k, v);
        else next.delete(k);
      }
      const s = next.toString();
      navigate({ search: s ? `?${s}` : "" }, { replace: !opts.push });
    },
    [navigate],
  );
}
