/** The Compare page's flipped answers: a page of examples whose answer or status differs, with links to details. */

import type { Comparison } from "@decision-workbench/api/shapes";
import { Link } from "react-router";
import { exampleLink, FLIPS_PAGE, pageText } from "../transforms/compare";
import { count, label, pct } from "../transforms/format";
import { Empty } from "./States";

/**
 * The flipped answers of `data` (one page from `data.flipped.offset`): per example its gold label and, per run,
 * the answer (red when wrong), its status when not answered, its confidence and a link to the example's detail in
 * that run. Previous / Next move by {@link FLIPS_PAGE}.
 */
export function CompareFlips({
  data,
  titles,
  onPage,
}: {
  data: Comparison;
  titles: Map<string, string>;
  onPage: (offset: number) => void;
}) {
  const { total, offset, rows, compared } = data.flipped;
  const title = (id: string) => titles.get(id) ?? id;
  return (
    <section aria-labelledby="flipped-heading" data-testid="flipped">
      <h2 id="flipped-heading">Flipped answers ({count(total)})</h2>
      <p className="muted small">
        Examples present in every run ({count(compared)}) whose answer or status differs; each answer with the
        run’s confidence in it. “Details” opens the example in that run.
      </p>
      {total === 0 ? (
        <Empty title="No answer flipped">Every shared example got the same answer in every run.</Empty>
      ) : (
        <>
          <div className="compare-box">
            <table className="table compact compare-stack compare-flips">
              <caption className="visually-hidden">
                Flipped answers {pageText(offset, rows.length, total)}
              </caption>
              <thead>
                <tr>
                  <th scope="col">Example</th>
                  <th scope="col">Gold</th>
                  {data.runs.map((r, i) => (
                    <th key={r.id} scope="col" className="compare-col">
                      {title(r.id)}
                      <div className="muted small">{i === 0 ? "baseline" : "answer · confidence"}</div>
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {rows.map((f) => (
                  <tr key={f.exampleId}>
                    <th scope="row" className="mono compare-example" data-label="Example">
                      {f.exampleId}
                    </th>
                    <td data-label="Gold">{label(f.gold)}</td>
                    {f.answers.map((a, i) => {
                      const run = data.runs[i];
                      const wrong = label(a) !== label(f.gold);
                      return (
                        <td
                          key={run?.id ?? i}
                          data-label={`${title(run?.id ?? "")}${i === 0 ? " (baseline)" : ""}`}
                        >
                          <span className={wrong ? "wrong" : undefined}>{label(a)}</span>
                          {wrong && <span className="visually-hidden"> (wrong)</span>}
                          {f.statuses[i] && f.statuses[i] !== "answered" && (
                            <span className="muted small"> ({f.statuses[i]})</span>
                          )}
                          <span className="compare-confidence"> · {pct(f.confidences[i])}</span>
                          {run && (
                            <>
                              {" "}
                              <Link
                                className="small"
                                to={exampleLink(run.id, {
                                  item: data.item,
                                  split: data.split,
                                  exampleId: f.exampleId,
                                  position: f.positions?.[i],
                                })}
                                aria-label={`Details of ${f.exampleId} in ${title(run.id)}`}
                              >
                                Details
                              </Link>
                            </>
                          )}
                        </td>
                      );
                    })}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <nav className="pager" aria-label="Pages of flipped answers">
            <button
              type="button"
              className="button"
              disabled={offset === 0}
              onClick={() => onPage(Math.max(0, offset - FLIPS_PAGE))}
            >
              ← Previous
            </button>
            <span data-testid="flips-page" aria-live="polite">
              {pageText(offset, rows.length, total)}
            </span>
            <button
              type="button"
              className="button"
              disabled={offset + FLIPS_PAGE >= total}
              onClick={() => onPage(offset + FLIPS_PAGE)}
            >
              Next →
            </button>
          </nav>
        </>
      )}
    </section>
  );
}
