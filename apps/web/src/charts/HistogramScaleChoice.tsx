/** The confidence histogram's scale (count, log count, share of group), kept in the URL as `?hist=`. */
import { useCallback, useMemo } from "react";
import { useNavigate, useSearchParams } from "react-router";
import {
  HISTOGRAM_SCALES,
  type HistogramScale,
  readHistogramScale,
  writeHistogramScale,
} from "../transforms/histogram";

const SCALE_TEXT: Record<HistogramScale, string> = {
  count: "Count",
  log: "Log count",
  share: "Share of group",
};

/** The scale of the link and a setter that writes it into the address (replacing the history entry). */
export function useHistogramScale(): [HistogramScale, (s: HistogramScale) => void] {
  const [sp] = useSearchParams();
  const navigate = useNavigate();
  const scale = useMemo(() => readHistogramScale(sp), [sp]);
  const set = useCallback(
    (s: HistogramScale) => {
      const next = writeHistogramScale(new URLSearchParams(window.location.search), s).toString();
      navigate({ search: next ? `?${next}` : "" }, { replace: true });
    },
    [navigate],
  );
  return [scale, set];
}

/** Radio buttons: the log scale and the shares keep a small wrong group visible next to a large right one. */
export function HistogramScaleChoice({
  scale,
  onChange,
}: {
  scale: HistogramScale;
  onChange: (s: HistogramScale) => void;
}) {
  return (
    <fieldset className="segmented">
      <legend>Height</legend>
      {HISTOGRAM_SCALES.map((s) => (
        <label key={s}>
          <input
            type="radio"
            name="hist-scale"
            value={s}
            checked={scale === s}
            onChange={() => onChange(s)}
          />
          {SCALE_TEXT[s]}
        </label>
      ))}
    </fieldset>
  );
}
