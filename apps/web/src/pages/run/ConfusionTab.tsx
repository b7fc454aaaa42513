/** Confusion matrix and per-option precision / recall / F1. */
import { useReport } from "../../api/runs";
import { ConfusionMatrix } from "../../charts/ConfusionMatrix";
import { RateText } from "../../components/CiText";
import { ScrollRegion } from "../../components/ScrollRegion";
import { Empty, ErrorState, Loading } from "../../components/States";
import { perOptionTable } from "../../transforms/confusion";
import { count, pct } from "../../transforms/format";
import type { TabProps } from "../RunPage";

/** The tab. */
export default function ConfusionTab({ run, item, split }: TabProps) {
  const report = useReport(run.id, { item: item?.name, split });
  if (report.error && !report.data) return <ErrorState error={report.error} retry={() => report.refetch()} />;
  if (!report.data) return <Loading label="Aggregating the run…" />;
  const r = report.data;
  const t = perOptionTable(r.perOption);
  return (
    <>
      {r.confusion ? (
        <ConfusionMatrix labels={r.confusion.labels} matrix={r.confusion.matrix} ready="confusion" />
      ) : (
        <Empty title="No confusion matrix">
          {r.item.kind === "multi"
            ? "Multi-label items have one binary decision per label: see the table below and the Thresholds tab."
            : "The API gave no matrix for this item."}
        </Empty>
      )}
      <ScrollRegion label="Per-option precision, recall and F1">
        <table className="table" data-ready={r.confusion ? undefined : "confusion"}>
          <caption>
            Per-{r.item.kind === "multi" ? "label" : "option"} precision, recall and F1, worst F1 first;
            precision is x of the predicted, recall x of the gold, each with its 95% Wilson interval
          </caption>
          <thead>
            <tr>
              <th scope="col">{r.item.kind === "multi" ? "Label" : "Option"}</th>
              <th scope="col" className="num">
                Precision
              </th>
              <th scope="col" className="num">
                Recall
              </th>
              <th scope="col" className="num">
                F1
              </th>
              <th scope="col" className="num">
                Support
              </th>
            </tr>
          </thead>
          <tbody>
            {t.rows.map((o) => (
              <tr key={o.option}>
                <th scope="row">{o.option}</th>
                <td className="num">
                  <RateText rate={o.rates.precision} />
                </td>
                <td className="num">
                  <RateText rate={o.rates.recall} />
                </td>
                <td className="num">{pct(o.f1)}</td>
                <td className="num">{count(o.support)}</td>
              </tr>
            ))}
          </tbody>
          <tfoot>
            <tr>
              <th scope="row">Macro average</th>
              <td className="num">{pct(t.macro.precision)}</td>
              <td className="num">{pct(t.macro.recall)}</td>
              <td className="num">{pct(t.macro.f1)}</td>
              <td className="num">{count(t.support)}</td>
            </tr>
          </tfoot>
        </table>
      </ScrollRegion>
    </>
  );
}
