/** Confusion matrix as a heatmap table: gold rows, predicted columns, shaded by the row share. */
import { ScrollRegion } from "../components/ScrollRegion";
import { cellColor, confusionTable } from "../transforms/confusion";
import { count, pct, plural } from "../transforms/format";

/** The table. */
export function ConfusionMatrix({
  labels,
  matrix,
  ready,
}: {
  labels: string[];
  matrix: number[][];
  ready?: string;
}) {
  const t = confusionTable({ labels, matrix });
  return (
    <figure className="chart" data-ready={ready}>
      <figcaption>
        <span className="chart-title">Confusion matrix</span>
        <span className="chart-description">
          Rows are the gold label, columns the answer; shading is the share of the row.{" "}
          {plural(t.n, "answer")}, {pct(t.accuracy)} on the diagonal.
        </span>
      </figcaption>
      <ScrollRegion label="Confusion matrix">
        <table className="table confusion">
          <thead>
            <tr>
              <th scope="col">Gold ↓ · Answer →</th>
              {t.labels.map((l) => (
                <th key={l} scope="col">
                  {l}
                </th>
              ))}
              <th scope="col">Total</th>
              <th scope="col">Recall</th>
            </tr>
          </thead>
          <tbody>
            {t.rows.map((r) => (
              <tr key={r.gold}>
                <th scope="row">{r.gold}</th>
                {r.cells.map((c) => (
                  <td
                    key={c.predicted}
                    // the text is black on every shade (styles.css): white read at under 4.5:1 on the darkest
                    style={{ background: cellColor(c) }}
                    title={`gold ${r.gold}, answered ${c.predicted}: ${count(c.count)} (${pct(c.rowShare)} of the row)`}
                  >
                    {count(c.count)}
                  </td>
                ))}
                <td>{count(r.total)}</td>
                <td>{pct(r.recall)}</td>
              </tr>
            ))}
          </tbody>
          <tfoot>
            <tr>
              <th scope="row">Total</th>
              {t.columnTotals.map((c, j) => (
                <td key={t.labels[j]}>{count(c)}</td>
              ))}
              <td>{count(t.n)}</td>
              <td />
            </tr>
          </tfoot>
        </table>
      </ScrollRegion>
    </figure>
  );
}
