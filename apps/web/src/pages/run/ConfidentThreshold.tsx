/** The "Confident and wrong" threshold next to the items list, kept in the URL (`?confidence=0.9`). */
import { useCallback, useEffect, useMemo, useState } from "react";
import { useNavigate, useSearchParams } from "react-router";
import { readConfidentThreshold, writeConfidentThreshold } from "../../transforms/confidentWrong";

/**
 * The threshold of the link (a share) and a setter that writes it into the address; a new threshold shows the list
 * from its top (no offset, no example picked).
 */
export function useConfidentThreshold(): [number, (t: number) => void] {
  const [sp] = useSearchParams();
  const navigate = useNavigate();
  const threshold = useMemo(() => readConfidentThreshold(sp), [sp]);
  const set = useCallback(
    (t: number) => {
      const sp = writeConfidentThreshold(new URLSearchParams(window.location.search), t);
      sp.delete("offset");
      sp.delete("example");
      const next = sp.toString();
      navigate({ search: next ? `?${next}` : "" }, { replace: true });
    },
    [navigate],
  );
  return [threshold, set];
}

/** A percentage field: "Confidence at least [80] %"; a value outside 0–100 is not applied and says so. */
export function ConfidentThreshold({
  threshold,
  onChange,
  total,
}: {
  threshold: number;
  onChange: (t: number) => void;
  /** How many wrong answers the threshold keeps, when known. */
  total?: string;
}) {
  const [text, setText] = useState(String(Math.round(threshold * 1000) / 10));
  useEffect(() => setText(String(Math.round(threshold * 1000) / 10)), [threshold]);
  const value = Number(text);
  const invalid = text.trim() === "" || !Number.isFinite(value) || value < 0 || value > 100;
  return (
    <div className="confident-threshold">
      <label>
        Confidence at least{" "}
        <input
          type="number"
          inputMode="decimal"
          min={0}
          max={100}
          step={5}
          value={text}
          aria-invalid={invalid || undefined}
          aria-describedby="confident-threshold-help"
          onChange={(e) => {
            setText(e.target.value);
            const v = Number(e.target.value);
            if (e.target.value.trim() !== "" && Number.isFinite(v) && v >= 0 && v <= 100) onChange(v / 100);
          }}
        />{" "}
        %
      </label>
      <span id="confident-threshold-help" className={invalid ? "field-error" : "muted small"}>
        {invalid
          ? "Give a percentage from 0 to 100."
          : `Wrong answers at or above ${Math.round(threshold * 1000) / 10}% confidence${total ? `: ${total}` : ""}.`}
      </span>
    </div>
  );
}
