/** Risk-coverage curve with the escalation threshold picker. */
import {
  CartesianGrid,
  Line,
  LineChart,
  ReferenceDot,
  ReferenceLine,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from "recharts";
import { count, pct, rateCount, rateInterval } from "../transforms/format";
import { escalationSummary, type PercentPoint, riskAxis } from "../transforms/riskCoverage";
import { CHART_SVG, ChartFrame } from "./ChartFrame";
import { AXIS_LABEL, COLORS, TICK } from "./colors";

function RcTooltip({ active, payload }: { active?: boolean; payload?: { payload?: PercentPoint }[] }) {
  const p = payload?.[0]?.payload;
  if (!active || !p) return null;
  return (
    <div className="tooltip">
      <strong>Confidence ≥ {p.threshold.toFixed(2)}</strong>
      <div>Answered alone {p.coverage.toFixed(1)}%</div>
      <div>Error of those {p.risk.toFixed(1)}%</div>
      <div>{count(p.escalated)} escalated</div>
    </div>
  );
}

/** The curve, a target-risk line, and a slider that picks a point and reads out what it means. */
export function RiskCoverage({
  points,
  n,
  index,
  onIndex,
  targetRisk,
  aurc,
  ready,
  usable,
}: {
  points: PercentPoint[];
  n: number;
  /** Measured rows the curve is over: gives the answered-alone error its x of n and interval. */
  usable?: number;
  index: number;
  onIndex: (i: number) => void;
  targetRisk: number;
  aurc: number | null;
  ready?: string;
}) {
  const picked = points[Math.min(Math.max(0, index), points.length - 1)];
  const s = picked ? escalationSummary(picked, n, usable) : null;
  const byCoverage = [...points].sort((a, b) => a.coverage - b.coverage);
  const y = riskAxis(points, targetRisk);
  const full = byCoverage[byCoverage.length - 1];
  return (
    <ChartFrame
      title="Risk against coverage"
      description={`Raise the escalation threshold to answer fewer questions alone with fewer errors. ${aurc === null ? "" : ` Area under the curve (AURC): ${aurc.toFixed(3)}.`}`}
      summary={
        full
          ? `answering everything alone errs ${full.risk.toFixed(1)}% of the time; ${points.length} thresholds from ${points[0].threshold.toFixed(2)} to ${points[points.length - 1].threshold.toFixed(2)}; the dashed line marks a ${pct(targetRisk, 0)} error goal${picked ? `; picked threshold ${picked.threshold.toFixed(2)}: ${picked.coverage.toFixed(1)}% answered alone, ${picked.risk.toFixed(1)}% error` : ""}`
          : undefined
      }
      ready={ready}
      legend={[
        { label: "Error of answered-alone decisions", color: COLORS.point, shape: "line" },
        { label: `Target risk ${pct(targetRisk, 0)}`, color: COLORS.over, shape: "dash" },
        { label: "Picked threshold", color: COLORS.marker, shape: "dot" },
      ]}
      controls={
        picked &&
        s && (
          <div className="picker">
            <label htmlFor="threshold-picker">
              Escalate when confidence is below <strong>{picked.threshold.toFixed(2)}</strong>
            </label>
            <input
              id="threshold-picker"
              type="range"
              min={0}
              max={points.length - 1}
              step={1}
              value={Math.min(index, points.length - 1)}
              onChange={(e) => onIndex(Number(e.target.value))}
              aria-valuetext={`threshold ${picked.threshold.toFixed(2)}: ${pct(s.answeredShare)} answered alone, ${pct(s.risk)} error`}
            />
            <output htmlFor="threshold-picker" className="picker-readout" aria-live="polite">
              <span>
                <strong>{pct(s.answeredShare)}</strong> answered alone
              </span>
              <span>
                <strong>{count(s.escalated)}</strong> escalated ({pct(s.escalatedShare)})
              </span>
              <span>
                answered-alone error <strong>{pct(s.risk)}</strong>
                {s.riskRate && s.riskRate.n > 0 && (
                  <span className="muted small">
                    {" "}
                    ({rateCount(s.riskRate)}, 95% CI {rateInterval(s.riskRate)})
                  </span>
                )}
              </span>
            </output>
          </div>
        )
      }
      table={
        <table className="table compact">
          <thead>
            <tr>
              <th scope="col">Threshold</th>
              <th scope="col">Coverage (%)</th>
              <th scope="col">Risk (%)</th>
              <th scope="col">Escalated</th>
            </tr>
          </thead>
          <tbody>
            {points.map((p) => (
              <tr key={p.threshold}>
                <td>{p.threshold.toFixed(3)}</td>
                <td>{p.coverage.toFixed(1)}</td>
                <td>{p.risk.toFixed(1)}</td>
                <td>{count(p.escalated)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      }
    >
      <ResponsiveContainer width="100%" height={320}>
        <LineChart {...CHART_SVG} data={byCoverage} margin={{ top: 10, right: 16, bottom: 28, left: 8 }}>
          <CartesianGrid stroke={COLORS.grid} />
          <XAxis
            type="number"
            dataKey="coverage"
            domain={[0, 100]}
            ticks={[0, 20, 40, 60, 80, 100]}
            tick={TICK}
            label={{
              value: "Coverage: answered alone (%)",
              position: "insideBottom",
              offset: -16,
              style: AXIS_LABEL,
            }}
          />
          <YAxis
            type="number"
            width={64}
            tick={TICK}
            domain={y.domain}
            ticks={y.ticks}
            label={{
              value: "Error rate (%)",
              angle: -90,
              position: "insideLeft",
              offset: 10,
              style: AXIS_LABEL,
            }}
          />
          <ReferenceLine y={targetRisk * 100} stroke={COLORS.over} strokeDasharray="5 4" />
          <Line dataKey="risk" stroke={COLORS.point} strokeWidth={2} dot={false} isAnimationActive={false} />
          {picked && (
            <ReferenceDot
              x={picked.coverage}
              y={picked.risk}
              r={6}
              fill={COLORS.marker}
              stroke="#fff"
              ifOverflow="visible"
            />
          )}
          <Tooltip content={<RcTooltip />} isAnimationActive={false} />
        </LineChart>
      </ResponsiveContainer>
    </ChartFrame>
  );
}
