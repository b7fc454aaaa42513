/** Histogram of confidence for right and wrong answers, on a count, log-count or share scale. */

import type { ItemReport } from "@decision-workbench/api/shapes";
import { Bar, BarChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { count, pct, plural } from "../transforms/format";
import {
  confidenceHistogram,
  type HistogramBar,
  type HistogramScale,
  histogramAxis,
  histogramSummary,
} from "../transforms/histogram";
import { CHART_SVG, ChartFrame } from "./ChartFrame";
import { AXIS_LABEL, COLORS, TICK } from "./colors";

/** A bar's value as the table and tooltip show it: a share of its group, or a count. */
function barText(b: HistogramBar, group: "right" | "wrong", scale: HistogramScale): string {
  const n = group === "right" ? b.rightCount : b.wrongCount;
  return scale === "share" ? `${(b[group] ?? 0).toFixed(1)}% (${count(n)})` : count(n);
}

function HistTooltip({
  active,
  payload,
  scale,
}: {
  active?: boolean;
  payload?: { payload?: HistogramBar }[];
  scale: HistogramScale;
}) {
  const b = payload?.[0]?.payload;
  if (!active || !b) return null;
  return (
    <div className="tooltip">
      <strong>Confidence {b.range}</strong>
      <div>
        Right: {barText(b, "right", scale)}
        {scale === "share" ? " of right answers" : ""}
      </div>
      <div>
        Wrong: {barText(b, "wrong", scale)}
        {scale === "share" ? " of wrong answers" : ""}
      </div>
      <div>
        {plural(b.total, "answer")}, {pct(b.wrongShare)} wrong
      </div>
    </div>
  );
}

/** The chart; the log and share scales keep a small wrong group visible next to a large right one. */
export function ConfidenceHistogram({
  histogram,
  scale,
  ready,
}: {
  histogram: ItemReport["histogram"];
  scale: HistogramScale;
  ready?: string;
}) {
  const data = confidenceHistogram(histogram, scale);
  const axis = histogramAxis(data, scale);
  const s = histogramSummary(histogram);
  return (
    <ChartFrame
      title="Confidence of right and wrong answers"
      description="A well-separated service puts its wrong answers at low confidence."
      summary={`${plural(s.right, "right answer")} at mean confidence ${pct(s.meanRight)} and ${plural(s.wrong, "wrong answer")} at ${pct(s.meanWrong)}, over ${data.length} confidence ranges; height is ${axis.label.toLowerCase()}`}
      ready={ready}
      legend={[
        { label: "Right answers", color: COLORS.right },
        { label: "Wrong answers", color: COLORS.wrong },
      ]}
      table={
        <table className="table compact">
          <thead>
            <tr>
              <th scope="col">Confidence</th>
              <th scope="col">Right</th>
              <th scope="col">Wrong</th>
              <th scope="col">Wrong share</th>
            </tr>
          </thead>
          <tbody>
            {data.map((b) => (
              <tr key={b.range}>
                <td>{b.range}</td>
                <td>{barText(b, "right", scale)}</td>
                <td>{barText(b, "wrong", scale)}</td>
                <td>{pct(b.wrongShare)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      }
    >
      <ResponsiveContainer width="100%" height={320}>
        <BarChart
          {...CHART_SVG}
          data={data}
          margin={{ top: 8, right: 16, bottom: 28, left: 8 }}
          barGap={0}
          barCategoryGap="12%"
        >
          <CartesianGrid stroke={COLORS.grid} vertical={false} />
          <XAxis
            dataKey="x"
            tick={TICK}
            tickFormatter={(x: number) => `${Math.round(x - 2.5)}`}
            interval={1}
            label={{ value: "Confidence (%)", position: "insideBottom", offset: -16, style: AXIS_LABEL }}
          />
          <YAxis
            width={56}
            tick={TICK}
            scale={axis.scale}
            domain={axis.domain}
            ticks={axis.ticks}
            allowDataOverflow
            tickFormatter={(v: number) => v.toLocaleString("en-US", { maximumFractionDigits: 1 })}
            label={{ value: axis.label, angle: -90, position: "insideLeft", offset: 10, style: AXIS_LABEL }}
          />
          <Tooltip content={<HistTooltip scale={scale} />} isAnimationActive={false} />
          <Bar dataKey="right" name="Right" fill={COLORS.right} isAnimationActive={false} />
          <Bar dataKey="wrong" name="Wrong" fill={COLORS.wrong} isAnimationActive={false} />
        </BarChart>
      </ResponsiveContainer>
    </ChartFrame>
  );
}
