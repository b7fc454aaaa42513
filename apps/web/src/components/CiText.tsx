/** A value with its interval on a second, smaller line (for dense tables). */
import type { CI } from "../api/types";
import { formatInterval, formatValue, type Unit } from "../transforms/format";

/** The cell content. */
export function CiText({ ci, unit }: { ci: CI | undefined; unit: Unit }) {
  if (!ci) return <>—</>;
  const interval = formatInterval(ci, unit);
  return (
    <>
      <span className="ci-point">{formatValue(ci[0], unit)}</span>
      {interval && <span className="ci-interval">{interval}</span>}
    </>
  );
}
