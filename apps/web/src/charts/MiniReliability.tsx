/**
 * A small reliability diagram drawn as plain SVG (no chart library), for small multiples: fifteen of them render
 * in a few milliseconds. Diagonal, gap shading, points (hollow when sparse) with a tooltip each, 0/50/100 axes.
 */
import type { Bin } from "@decision-workbench/api/shapes";
import { count, plural } from "../transforms/format";
import { gapAreas, reliabilityPoints, reliabilitySummary } from "../transforms/reliability";
import { ChartTable, chartName } from "./ChartFrame";
import { COLORS } from "./colors";

const W = 300;
const H = 230;
const M = { top: 8, right: 12, bottom: 40, left: 48 };
const PW = W - M.left - M.right;
const PH = H - M.top - M.bottom;
const x = (v: number) => M.left + (v / 100) * PW;
const y = (v: number) => M.top + PH - (v / 100) * PH;

/** The diagram of one option's one-vs-rest bins. */
export function MiniReliability({
  bins,
  title,
  subtitle,
}: {
  bins: Bin[];
  title: string;
  subtitle?: string;
}) {
  const points = reliabilityPoints(bins);
  const gaps = gapAreas(bins);
  const line = points.map((p, i) => `${i ? "L" : "M"}${x(p.x).toFixed(1)},${y(p.y).toFixed(1)}`).join("");
  return (
    <figure className="chart chart-small">
      <figcaption>
        <span className="chart-title">{title}</span>
        {subtitle && <span className="chart-description">{subtitle}</span>}
      </figcaption>
      <svg
        viewBox={`0 0 ${W} ${H}`}
        width="100%"
        role="img"
        aria-label={chartName(`Reliability of ${title}`, reliabilitySummary(points))}
        className="mini-chart"
      >
        {[0, 50, 100].map((t) => (
          <g key={t}>
            <line x1={x(0)} x2={x(100)} y1={y(t)} y2={y(t)} stroke={COLORS.grid} />
            <line x1={x(t)} x2={x(t)} y1={y(0)} y2={y(100)} stroke={COLORS.grid} />
            <text x={x(t)} y={y(0) + 14} textAnchor="middle" className="mini-tick">
              {t}
            </text>
            <text x={x(0) - 6} y={y(t) + 4} textAnchor="end" className="mini-tick">
              {t}
            </text>
          </g>
        ))}
        {gaps.map((g) => (
          <rect
            key={`${g.x1}-${g.x2}`}
            x={x(g.x1)}
            width={Math.max(1, x(g.x2) - x(g.x1))}
            y={y(g.y2)}
            height={Math.max(0.5, y(g.y1) - y(g.y2))}
            fill={g.direction === "over" ? COLORS.over : COLORS.under}
            fillOpacity={g.sparse ? 0.07 : 0.2}
          />
        ))}
        <line x1={x(0)} y1={y(0)} x2={x(100)} y2={y(100)} stroke={COLORS.diagonal} strokeDasharray="5 4" />
        <path d={line} fill="none" stroke={COLORS.point} strokeWidth={1.5} />
        {points.map((p) => (
          <circle
            key={p.lo}
            cx={x(p.x)}
            cy={y(p.y)}
            r={3.5}
            fill={p.sparse ? "#ffffff" : COLORS.point}
            stroke={p.sparse ? COLORS.sparse : COLORS.point}
            strokeWidth={2}
          >
            <title>{`${p.lo.toFixed(0)}–${p.hi.toFixed(0)}%: ${plural(p.count, "pair")}, probability ${p.x.toFixed(1)}%, frequency ${p.y.toFixed(1)}%`}</title>
          </circle>
        ))}
        <line x1={x(0)} x2={x(100)} y1={y(0)} y2={y(0)} stroke={COLORS.axis} />
        <line x1={x(0)} x2={x(0)} y1={y(0)} y2={y(100)} stroke={COLORS.axis} />
        <text x={M.left + PW / 2} y={H - 6} textAnchor="middle" className="mini-label">
          Probability (%)
        </text>
        <text
          transform={`translate(14 ${M.top + PH / 2}) rotate(-90)`}
          textAnchor="middle"
          className="mini-label"
        >
          Frequency (%)
        </text>
      </svg>
      <ChartTable title={`reliability of ${title}`}>
        <table className="table compact">
          <thead>
            <tr>
              <th scope="col">Bin (%)</th>
              <th scope="col">Pairs</th>
              <th scope="col">Probability (%)</th>
              <th scope="col">Frequency (%)</th>
            </tr>
          </thead>
          <tbody>
            {points.map((p) => (
              <tr key={p.lo}>
                <td>
                  {p.lo.toFixed(0)}–{p.hi.toFixed(0)}
                </td>
                <td>{count(p.count)}</td>
                <td>{p.x.toFixed(1)}</td>
                <td>{p.y.toFixed(1)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </ChartTable>
    </figure>
  );
}
