/** The confidence histogram's scale (count, log count, share of group), kept in the URL as `?hist=`. */
import { useCallback, useMemo } from "react";
import { useNavigate, useSearchParams } from "react-router";
import { Segmented } from "../components/Segmented";
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
    <Segmented
      legend="Height"
      name="hist-scale"
      options={HISTOGRAM_SCALES}
      value={scale}
      text={(s) => SCALE_TEXT[s]}
      onChange={onChange}
    />
  );
}
