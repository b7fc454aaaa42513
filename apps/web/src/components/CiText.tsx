/** A value with its interval on a second, smaller line (for dense tables). */
import type { MaybeCI, Rate } from "@decision-workbench/api/shapes";
import { formatInterval, formatValue, pct, rateCount, rateInterval, type Unit } from "../transforms/format";

/** The cell content. */
export function CiText({ ci, unit }: { ci: MaybeCI | undefined; unit: Unit }) {
  if (!ci) return <>—</>;
  const interval = formatInterval(ci, unit);
  return (
    <>
      <span className="ci-point">{formatValue(ci[0], unit)}</span>
      {interval && <span className="ci-interval">{interval}</span>}
    </>
  );
}

/**
 * A rate's cell: the share, then its count and 95 % Wilson interval on the smaller line ("41/43 · 84.5–98.7%"), so
 * 100 % from one item reads "1/1 · 20.7–100.0%". n = 0 shows "—" over "0/0".
 */
export function RateText({ rate }: { rate: Rate | undefined }) {
  if (!rate) return <>—</>;
  const interval = rateInterval(rate);
  return (
    <>
      <span className="ci-point">{pct(rate.value)}</span>
      <span className="ci-interval" title="x of n, 95% Wilson interval">
        <span className="rate-n">{rateCount(rate)}</span>
        {interval && ` · ${interval}`}
      </span>
    </>
  );
}
