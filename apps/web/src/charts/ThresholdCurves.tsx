/** Multi-label threshold curves: precision, recall and F1 against the threshold, 0.5 and the tuned one marked. */
import {
  CartesianGrid,
  Line,
  LineChart,
  ReferenceLine,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from "recharts";
import { pct } from "../transforms/format";
import type { ThresholdSeries } from "../transforms/thresholds";
import { CHART_SVG, ChartLegend, ChartTable, chartName } from "./ChartFrame";
import { AXIS_LABEL, COLORS, TICK } from "./colors";

/** The curves drawn for each label (their Line's props), in the order of the legend, tooltip and data table. */
const CURVES = [
  { dataKey: "precision", name: "Precision", stroke: COLORS.precision, strokeWidth: 2 },
  { dataKey: "recall", name: "Recall", stroke: COLORS.recall, strokeWidth: 2 },
  { dataKey: "f1", name: "F1", stroke: COLORS.f1, strokeWidth: 2.5 },
] as const;

function CurveTooltip({
  active,
  payload,
}: {
  active?: boolean;
  payload?: { payload?: ThresholdSeries["points"][number] }[];
}) {
  const p = payload?.[0]?.payload;
  if (!active || !p) return null;
  return (
    <div className="tooltip">
      <strong>Threshold {p.t.toFixed(0)}%</strong>
      {CURVES.map((c) => (
        <div key={c.dataKey}>
          {c.name} {p[c.dataKey].toFixed(1)}%
        </div>
      ))}
    </div>
  );
}

/** The rows of a curve's data table: every point, or every 5 % when the curve has many. */
function tablePoints(points: ThresholdSeries["points"]): ThresholdSeries["points"] {
  return points.length > 25 ? points.filter((p) => Math.abs(p.t / 5 - Math.round(p.t / 5)) < 1e-9) : points;
}

/** One label's curves. */
function ThresholdCurve({ s }: { s: ThresholdSeries }) {
  return (
    <figure className="chart chart-small">
      <figcaption>
        <span className="chart-title">{s.label}</span>
        <span className="chart-description">
          {s.tuned === null
            ? `never applies · F1 ${pct(s.f1At05)} at 0.5`
            : `F1 ${pct(s.f1At05)} at 0.5 → ${pct(s.f1Tuned)} at ${(s.tuned / 100).toFixed(2)} on these rows${s.f1HeldOut === null ? "" : `, ${pct(s.f1HeldOut)} on unseen rows`}`}
        </span>
      </figcaption>
      <div
        className="chart-body"
        role="img"
        aria-label={chartName(
          `${s.label}: precision, recall and F1 against the threshold`,
          `F1 ${pct(s.f1At05)} at 0.5${s.tuned === null ? "" : `, ${pct(s.f1Tuned)} at the tuned threshold ${(s.tuned / 100).toFixed(2)}`}`,
        )}
      >
        <ResponsiveContainer width="100%" height={230}>
          <LineChart {...CHART_SVG} data={s.points} margin={{ top: 16, right: 12, bottom: 24, left: 4 }}>
            <CartesianGrid stroke={COLORS.grid} />
            <XAxis
              type="number"
              dataKey="t"
              domain={[0, 100]}
              ticks={[0, 25, 50, 75, 100]}
              tick={TICK}
              label={{ value: "Threshold (%)", position: "insideBottom", offset: -12, style: AXIS_LABEL }}
            />
            <YAxis
              domain={[0, 100]}
              ticks={[0, 25, 50, 75, 100]}
              width={52}
              tick={TICK}
              label={{ value: "Score (%)", angle: -90, position: "insideLeft", offset: 8, style: AXIS_LABEL }}
            />
            <ReferenceLine
              x={50}
              stroke={COLORS.diagonal}
              strokeDasharray="4 4"
              label={{ value: "0.5", position: "insideBottomLeft", fontSize: 11, fill: "#374151" }}
            />
            {s.tuned !== null && (
              <ReferenceLine
                x={s.tuned}
                stroke={COLORS.marker}
                strokeWidth={1.5}
                label={{ value: "tuned", position: "top", fontSize: 11, fill: "#111827" }}
              />
            )}
            {CURVES.map((c) => (
              <Line key={c.dataKey} {...c} dot={false} isAnimationActive={false} />
            ))}
            <Tooltip content={<CurveTooltip />} isAnimationActive={false} />
          </LineChart>
        </ResponsiveContainer>
      </div>
      <ChartTable title={`${s.label} thresholds`}>
        <table className="table compact">
          <thead>
            <tr>
              <th scope="col">Threshold (%)</th>
              {CURVES.map((c) => (
                <th scope="col" key={c.dataKey}>
                  {c.name} (%)
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {tablePoints(s.points).map((p) => (
              <tr key={p.t}>
                <td>{p.t.toFixed(0)}</td>
                {CURVES.map((c) => (
                  <td key={c.dataKey}>{p[c.dataKey].toFixed(1)}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </ChartTable>
    </figure>
  );
}

/** Small multiples, one per label, with one shared legend. */
export function ThresholdCurves({ series, ready }: { series: ThresholdSeries[]; ready?: string }) {
  return (
    <div data-ready={ready}>
      <ChartLegend
        entries={[
          ...CURVES.map((c) => ({ label: c.name, color: c.stroke, shape: "line" as const })),
          { label: "Threshold 0.5", color: COLORS.diagonal, shape: "dash" },
          { label: "Tuned threshold", color: COLORS.marker, shape: "line" },
        ]}
      />
      <div className="multiples">
        {series.map((s) => (
          <ThresholdCurve key={s.label} s={s} />
        ))}
      </div>
    </div>
  );
}
