/** Histogram of confidence for right and wrong answers. */

import type { ItemReport } from "@decision-workbench/api/shapes";
import { Bar, BarChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { count, pct } from "../transforms/format";
import { confidenceHistogram, type HistogramBar } from "../transforms/histogram";
import { ChartFrame } from "./ChartFrame";
import { AXIS_LABEL, COLORS, TICK } from "./colors";

function HistTooltip({
  active,
  payload,
  normalize,
}: {
  active?: boolean;
  payload?: { payload?: HistogramBar }[];
  normalize: boolean;
}) {
  const b = payload?.[0]?.payload;
  if (!active || !b) return null;
  return (
    <div className="tooltip">
      <strong>Confidence {b.range}</strong>
      <div>Right: {normalize ? `${b.right.toFixed(1)}% of right answers` : count(b.right)}</div>
      <div>Wrong: {normalize ? `${b.wrong.toFixed(1)}% of wrong answers` : count(b.wrong)}</div>
      <div>
        {count(b.total)} answers, {pct(b.wrongShare)} wrong
      </div>
    </div>
  );
}

/** The chart; `normalize` shows each group as shares of itself so a small wrong group stays visible. */
export function ConfidenceHistogram({
  histogram,
  normalize,
  ready,
}: {
  histogram: ItemReport["histogram"];
  normalize: boolean;
  ready?: string;
}) {
  const data = confidenceHistogram(histogram, normalize);
  const yLabel = normalize ? "Share of group (%)" : "Count";
  return (
    <ChartFrame
      title="Confidence of right and wrong answers"
      description="A well-separated service puts its wrong answers at low confidence."
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
                <td>{normalize ? `${b.right.toFixed(1)}%` : count(b.right)}</td>
                <td>{normalize ? `${b.wrong.toFixed(1)}%` : count(b.wrong)}</td>
                <td>{pct(b.wrongShare)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      }
    >
      <ResponsiveContainer width="100%" height={320}>
        <BarChart
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
            allowDecimals={normalize}
            label={{ value: yLabel, angle: -90, position: "insideLeft", offset: 10, style: AXIS_LABEL }}
          />
          <Tooltip content={<HistTooltip normalize={normalize} />} isAnimationActive={false} />
          <Bar dataKey="right" name="Right" fill={COLORS.right} isAnimationActive={false} />
          <Bar dataKey="wrong" name="Wrong" fill={COLORS.wrong} isAnimationActive={false} />
        </BarChart>
      </ResponsiveContainer>
    </ChartFrame>
  );
}
