/**
 * /compare?runs=a,b&baseline=&item=&split=&offset=: runs overlaid, metrics with paired deltas against the baseline
 * (the older run unless one is picked), a page of flipped answers, the served-model banner.
 */

import { Link, useSearchParams } from "react-router";
import { useCompare } from "../api/compare";
import { useDataset } from "../api/datasets";
import { useRuns } from "../api/runs";
import { ReliabilityOverlay } from "../charts/ReliabilityDiagram";
import { CompareBaseline } from "../components/CompareBaseline";
import { CompareFlips } from "../components/CompareFlips";
import { CompareMetrics } from "../components/CompareMetrics";
import { CompareRunPicker } from "../components/CompareRunPicker";
import { Empty, ErrorState, Loading } from "../components/States";
import {
  compareOrder,
  distinctTitles,
  FLIPS_PAGE,
  runTitle,
  servedBy,
  servedModelBanner,
  swappedBaseline,
} from "../transforms/compare";
import { overlaySeries } from "../transforms/reliability";
import { servedByLabel } from "../transforms/servedBy";
import { readRunList, toggleRun } from "../transforms/urlState";
import { useSearchPatch } from "./useSearchPatch";

/** The splits to compare on: each of the runs' splits, and all of them together when there are several. */
function splitChoices(splits: string[]): string[] {
  return splits.length > 1 ? [...splits, "all"] : splits;
}

/** The page. */
export default function ComparePage() {
  const [sp] = useSearchParams();
  const chosen = readRunList(sp);
  const runs = useRuns();
  const known = runs.data ?? [];
  // the order waits for the run list: without creation times the baseline is not known yet
  const { baseline, order, chosen: picked } = compareOrder(chosen, known, sp.get("baseline"));
  const baseRun = known.find((r) => r.id === baseline);
  const dataset = useDataset(baseRun?.dataset);
  const items = dataset.data?.items ?? [];
  const item = sp.get("item") ?? items[0]?.name;
  const split = sp.get("split") ?? "test";
  const offRaw = Number.parseInt(sp.get("offset") ?? "", 10);
  const offset = Number.isFinite(offRaw) && offRaw > 0 ? offRaw : 0;
  const cmp = useCompare(runs.data ? order : [], { item, split, offset, limit: FLIPS_PAGE });
  const set = useSearchPatch();
  // the compared runs told apart (same title: the server's name, then the id); the others by their title
  const titles = new Map(known.map((r) => [r.id, runTitle(r)]));
  for (const [id, t] of distinctTitles(known.filter((r) => chosen.includes(r.id)))) titles.set(id, t);
  const title = (id: string) => titles.get(id) ?? id;
  const names = (cmp.data?.runs ?? []).map(
    (r, i) => `${title(r.id)}${i === 0 ? " (baseline)" : ""} · ${r.model} → ${servedByLabel(servedBy(r))}`,
  );
  const banner = cmp.data ? servedModelBanner(cmp.data, titles) : null;
  return (
    <div className="page compare-page">
      <h1>Compare runs</h1>
      <p className="lead">
        The same examples asked twice: did the calibration change, which answers flipped, and was the same
        model serving?
      </p>
      {runs.error && !runs.data ? (
        <ErrorState error={runs.error} title="The runs could not be loaded" retry={() => runs.refetch()} />
      ) : !runs.data ? (
        <Loading label="Loading runs…" />
      ) : runs.data.length < 2 ? (
        <Empty
          title="Two runs are needed"
          action={
            <Link className="button primary" to="/runs/new">
              Start a run
            </Link>
          }
        >
          Start a second run on the same dataset (for example with another model, or after the service swapped
          its weights) and compare them here.
        </Empty>
      ) : (
        <CompareRunPicker
          runs={runs.data}
          chosen={chosen}
          onToggle={(id) => {
            const next = toggleRun(chosen, id);
            set({
              runs: next.join(",") || undefined,
              baseline: next.includes(sp.get("baseline") ?? "")
                ? (sp.get("baseline") ?? undefined)
                : undefined,
              offset: undefined,
            });
          }}
        />
      )}
      {chosen.length >= 2 && runs.data && (
        <>
          <CompareBaseline
            runs={order.map((id) => ({
              id,
              title: title(id),
              createdAt: known.find((r) => r.id === id)?.createdAt,
            }))}
            chosen={picked}
            onChange={(id) => set({ baseline: id, offset: undefined })}
            onSwap={() => set({ baseline: swappedBaseline(order), offset: undefined })}
          />
          <div className="toolbar">
            <label>
              Item{" "}
              <select value={item ?? ""} onChange={(e) => set({ item: e.target.value, offset: undefined })}>
                {items.map((i) => (
                  <option key={i.name} value={i.name}>
                    {i.name}
                  </option>
                ))}
              </select>
            </label>
            <label>
              Split{" "}
              <select value={split} onChange={(e) => set({ split: e.target.value, offset: undefined })}>
                {splitChoices(baseRun?.splits ?? ["test"]).map((s) => (
                  <option key={s} value={s}>
                    {s}
                  </option>
                ))}
              </select>
            </label>
            {cmp.isFetching && cmp.data && (
              <span className="muted small" role="status">
                Updating…
              </span>
            )}
          </div>
          {cmp.error && !cmp.data ? (
            <ErrorState
              error={cmp.error}
              title="The runs could not be compared"
              retry={() => cmp.refetch()}
            />
          ) : !cmp.data ? (
            <Loading label="Comparing on the shared examples (paired bootstrap)…" />
          ) : (
            <div data-ready="compare" data-baseline={cmp.data.runs[0]?.id}>
              {banner ? (
                <div className="banner banner-warning" role="alert" data-testid="served-model-banner">
                  <strong>Served model differs.</strong> {banner}
                </div>
              ) : (
                <div className="banner banner-info" role="status">
                  Every run was served by the same model (
                  {cmp.data.runs[0] ? servedByLabel(servedBy(cmp.data.runs[0])) : "—"}).
                </div>
              )}
              <ReliabilityOverlay
                title={`Reliability of ${item ?? "the item"}, ${split} split`}
                description="Top-label reliability of each run, equal-width bins."
                series={overlaySeries(cmp.data.bins, names)}
              />
              <CompareMetrics data={cmp.data} titles={titles} />
              {cmp.data.methods && (
                <p className="muted small">
                  Values: {cmp.data.methods.values}. Changes: {cmp.data.methods.deltas}.
                </p>
              )}
              <CompareFlips
                data={cmp.data}
                titles={titles}
                onPage={(o) => set({ offset: o > 0 ? String(o) : undefined })}
              />
            </div>
          )}
        </>
      )}
    </div>
  );
}
