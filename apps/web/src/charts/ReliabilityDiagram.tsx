/** Reliability diagram: diagonal, per-bin accuracy with intervals, gap shading, count histogram under it, overlays. */

import type { Bin } from "@decision-workbench/api/shapes";
import {
  CartesianGrid,
  ComposedChart,
  ErrorBar,
  ReferenceArea,
  ReferenceLine,
  ResponsiveContainer,
  Scatter,
  Tooltip,
  useXAxisScale,
  useYAxisScale,
  XAxis,
  YAxis,
} from "recharts";
import { niceTicks } from "../transforms/axis";
import { count, pct, plural } from "../transforms/format";
import {
  type CountBar,
  countBars,
  gapAreas,
  type OverlaySeries,
  type ReliabilityPoint,
  reliabilityPoints,
  reliabilitySummary,
  SPARSE_BIN,
} from "../transforms/reliability";
import { CHART_SVG, ChartFrame, type LegendEntry } from "./ChartFrame";
import { AXIS_LABEL, COLORS, TICK } from "./colors";

const TICKS = [0, 20, 40, 60, 80, 100];
const Y_WIDTH = 56;

/** The confidence axis (0 to 100 %) the diagram and its count histogram share, so their bins line up. */
function confidenceAxis(label: string) {
  return {
    type: "number" as const,
    dataKey: "x",
    domain: [0, 100],
    ticks: TICKS,
    tick: TICK,
    label: { value: label, position: "insideBottom" as const, offset: -16, style: AXIS_LABEL },
  };
}

function PointShape(props: {
  cx?: number;
  cy?: number;
  payload?: ReliabilityPoint;
  fill?: string;
  r?: number;
}) {
  const { cx, cy, payload, fill } = props;
  if (cx === undefined || cy === undefined) return null;
  const sparse = payload?.sparse;
  return (
    <circle
      cx={cx}
      cy={cy}
      r={props.r ?? 5}
      fill={sparse ? "#ffffff" : fill}
      stroke={sparse ? COLORS.sparse : fill}
      strokeWidth={2}
    />
  );
}

function BinTooltip({
  active,
  payload,
}: {
  active?: boolean;
  payload?: { payload?: ReliabilityPoint; name?: string }[];
}) {
  const p = payload?.[0]?.payload;
  if (!active || !p) return null;
  return (
    <div className="tooltip">
      {p.series && <strong>{p.series}</strong>}
      <div>
        Bin {p.lo.toFixed(0)}–{p.hi.toFixed(0)}% · {plural(p.count, "answer")}
      </div>
      <div>Mean confidence {p.x.toFixed(1)}%</div>
      <div>
        Accuracy {p.y.toFixed(1)}%
        {p.low !== null && p.high !== null ? ` (95% interval ${p.low.toFixed(1)}–${p.high.toFixed(1)}%)` : ""}
      </div>
      <div>
        {p.gap < 0 ? "Over-confident by " : "Under-confident by "}
        {Math.abs(p.gap).toFixed(1)} pp
      </div>
      {p.sparse && <div className="muted">Fewer than {SPARSE_BIN} answers: the interval is wide.</div>}
    </div>
  );
}

/** Bars of the count histogram drawn with the chart's own scales (bins may have unequal widths). */
function CountBars({ bars }: { bars: CountBar[] }) {
  const x = useXAxisScale();
  const y = useYAxisScale();
  if (!x || !y) return null;
  return (
    <g className="count-bars">
      {bars.map((b) => {
        const x1 = Number(x(b.x1));
        const x2 = Number(x(b.x2));
        const y0 = Number(y(0));
        const y1 = Number(y(b.count));
        return (
          <rect
            key={`${b.x1}-${b.x2}`}
            x={x1 + 0.5}
            y={Math.min(y0, y1)}
            width={Math.max(1, x2 - x1 - 1)}
            height={Math.abs(y0 - y1)}
            fill={COLORS.count}
            fillOpacity={0.55}
          >
            <title>
              {`${b.x1.toFixed(0)}–${b.x2.toFixed(0)}%: ${plural(b.count, "answer")} (${pct(b.share)})`}
            </title>
          </rect>
        );
      })}
    </g>
  );
}

function CountTooltip({ active, payload }: { active?: boolean; payload?: { payload?: CountBar }[] }) {
  const b = payload?.[0]?.payload;
  if (!active || !b) return null;
  return (
    <div className="tooltip">
      Bin {b.x1.toFixed(0)}–{b.x2.toFixed(0)}%: <strong>{plural(b.count, "answer")}</strong> ({pct(b.share)})
    </div>
  );
}

/** The count histogram under a diagram, on the same x axis. */
function CountHistogram({ bins, height = 110 }: { bins: Bin[]; height?: number }) {
  const bars = countBars(bins);
  const yTicks = niceTicks(Math.max(1, ...bars.map((b) => b.count)), 2);
  return (
    <ResponsiveContainer width="100%" height={height}>
      <ComposedChart {...CHART_SVG} margin={{ top: 4, right: 16, bottom: 28, left: 8 }}>
        <CartesianGrid stroke={COLORS.grid} vertical={false} />
        <XAxis {...confidenceAxis("Confidence (%)")} />
        <YAxis
          type="number"
          domain={[0, yTicks[yTicks.length - 1]]}
          ticks={yTicks}
          width={Y_WIDTH}
          tick={TICK}
          tickFormatter={(v: number) => count(v)}
          label={{ value: "Count", angle: -90, position: "insideLeft", offset: 10, style: AXIS_LABEL }}
        />
        {/* Invisible points at the bar tops: they give the axes their data and the bars a tooltip. */}
        <Scatter
          data={bars.map((b) => ({ ...b, x: (b.x1 + b.x2) / 2, y: b.count }))}
          dataKey="y"
          shape={() => <g />}
          isAnimationActive={false}
        />
        <CountBars bars={bars} />
        <Tooltip content={<CountTooltip />} cursor={false} isAnimationActive={false} />
      </ComposedChart>
    </ResponsiveContainer>
  );
}

/** The diagram's plot for one or several series. */
function ReliabilityPlot({
  series,
  gaps,
  height,
}: {
  series: OverlaySeries[];
  gaps: ReturnType<typeof gapAreas>;
  height: number;
}) {
  const single = series.length === 1;
  return (
    <ResponsiveContainer width="100%" height={height}>
      {/* No allowDataOverflow on the axes: it clips the plot, which cut points at 0 or 100 % in half. */}
      <ComposedChart {...CHART_SVG} margin={{ top: 10, right: 16, bottom: 28, left: 8 }}>
        <CartesianGrid stroke={COLORS.grid} />
        <XAxis {...confidenceAxis("Mean confidence (%)")} />
        <YAxis
          type="number"
          dataKey="y"
          domain={[0, 100]}
          ticks={TICKS}
          width={Y_WIDTH}
          tick={TICK}
          label={{ value: "Accuracy (%)", angle: -90, position: "insideLeft", offset: 10, style: AXIS_LABEL }}
        />
        {gaps.map((g) => (
          <ReferenceArea
            key={`${g.x1}-${g.x2}`}
            x1={g.x1}
            x2={g.x2}
            y1={g.y1}
            y2={g.y2}
            fill={g.direction === "over" ? COLORS.over : COLORS.under}
            fillOpacity={g.sparse ? 0.07 : 0.2}
            stroke="none"
            ifOverflow="hidden"
          />
        ))}
        <ReferenceLine
          segment={[
            { x: 0, y: 0 },
            { x: 100, y: 100 },
          ]}
          stroke={COLORS.diagonal}
          strokeDasharray="5 4"
          ifOverflow="hidden"
        />
        {series.map((s, i) => (
          <Scatter
            key={s.key}
            name={s.name}
            data={s.points}
            fill={s.color}
            // Overlays join each series' points (the first one dashed) and leave the intervals to the data table.
            line={
              !single
                ? { stroke: s.color, strokeWidth: 2, strokeDasharray: !single && i === 0 ? "6 3" : undefined }
                : false
            }
            shape={(p: object) => <PointShape {...(p as object)} fill={s.color} r={single ? 5 : 4} />}
            isAnimationActive={false}
          >
            {/* Not animated: the bars grew in from nothing over 400 ms after every draw and every resize of the
                window, so a narrowed window or a screenshot showed the points without their intervals. */}
            {single && (
              <ErrorBar
                dataKey="err"
                direction="y"
                width={5}
                stroke={s.color}
                strokeWidth={1.5}
                isAnimationActive={false}
              />
            )}
          </Scatter>
        ))}
        <Tooltip content={<BinTooltip />} cursor={{ strokeDasharray: "3 3" }} isAnimationActive={false} />
      </ComposedChart>
    </ResponsiveContainer>
  );
}

function PointsTable({ series }: { series: OverlaySeries[] }) {
  return (
    <table className="table compact">
      <thead>
        <tr>
          {series.length > 1 && <th scope="col">Series</th>}
          <th scope="col">Bin (%)</th>
          <th scope="col">Answers</th>
          <th scope="col">Mean confidence (%)</th>
          <th scope="col">Accuracy (%)</th>
          <th scope="col">95% interval (%)</th>
        </tr>
      </thead>
      <tbody>
        {series.flatMap((s) =>
          s.points.map((p) => (
            <tr key={`${s.key}-${p.lo}`}>
              {series.length > 1 && <td>{s.name}</td>}
              <td>
                {p.lo.toFixed(1)}–{p.hi.toFixed(1)}
              </td>
              <td>{count(p.count)}</td>
              <td>{p.x.toFixed(1)}</td>
              <td>{p.y.toFixed(1)}</td>
              <td>{p.low !== null && p.high !== null ? `${p.low.toFixed(1)}–${p.high.toFixed(1)}` : "—"}</td>
            </tr>
          )),
        )}
      </tbody>
    </table>
  );
}

const BASE_LEGEND: LegendEntry[] = [
  { label: "Perfect calibration", color: COLORS.diagonal, shape: "dash" },
  { label: "Over-confident gap", color: COLORS.over },
  { label: "Under-confident gap", color: COLORS.under },
  { label: `Bin with fewer than ${SPARSE_BIN} answers`, color: COLORS.sparse, shape: "dot" },
];

/** One run's diagram with gap shading and the count histogram under it. */
export function ReliabilityDiagram({
  bins,
  title = "Reliability",
  description,
  height = 360,
  ready,
}: {
  bins: Bin[];
  title?: string;
  description?: string;
  height?: number;
  ready?: string;
}) {
  const series: OverlaySeries[] = [
    { key: "s0", name: "Accuracy per bin", color: COLORS.point, points: reliabilityPoints(bins) },
  ];
  return (
    <ChartFrame
      title={title}
      description={description}
      summary={`accuracy against mean confidence, ${reliabilitySummary(series[0].points)}`}
      ready={ready}
      legend={[
        { label: "Accuracy per bin, 95% interval", color: COLORS.point, shape: "dot" },
        ...BASE_LEGEND,
      ]}
      table={<PointsTable series={series} />}
    >
      <ReliabilityPlot series={series} gaps={gapAreas(bins)} height={height} />
      <CountHistogram bins={bins} />
    </ChartFrame>
  );
}

/** Several series on one diagram (runs, or before / after a calibration). */
export function ReliabilityOverlay({
  series,
  title,
  description,
  height = 360,
  ready,
}: {
  series: OverlaySeries[];
  title: string;
  description?: string;
  height?: number;
  ready?: string;
}) {
  return (
    <ChartFrame
      title={title}
      description={description}
      // Series names stay in the legend: a name such as "calibrated" would give the image a form control's label.
      summary={`accuracy against mean confidence of ${series.length} series, in the legend's order: ${series.map((s) => reliabilitySummary(s.points)).join("; then ")}`}
      ready={ready}
      legend={[
        ...series.map((s) => ({ label: s.name, color: s.color, shape: "dot" as const })),
        { label: "Perfect calibration", color: COLORS.diagonal, shape: "dash" },
      ]}
      table={<PointsTable series={series} />}
    >
      <ReliabilityPlot series={series} gaps={[]} height={height} />
    </ChartFrame>
  );
}
