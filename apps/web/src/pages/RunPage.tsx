/** /runs/:id: live progress while it runs, then one tab per view of the chosen item and split. */

import type { ItemSpec, RunSummary, SplitChoice } from "@decision-workbench/api/shapes";
import { lazy, Suspense } from "react";
import { Link, useParams } from "react-router";
import { useDataset } from "../api/datasets";
import { useRunEvents } from "../api/events";
import { useRun, useRunAction } from "../api/runs";
import { DownloadLink } from "../components/DownloadLink";
import { ProgressPanel } from "../components/ProgressPanel";
import { RunName } from "../components/RunName";
import { ErrorState, Loading } from "../components/States";
import { StatusBadge } from "../components/StatusBadge";
import { Tabs } from "../components/Tabs";
import { count, headlineAccuracy, pct, when } from "../transforms/format";
import { type PartialMark, partialMark } from "../transforms/progress";
import { servedByLabel } from "../transforms/servedBy";
import { type RunTab, writeRunView } from "../transforms/urlState";
import { PartialBadge, PartialNote } from "./run/PartialNote";
import { useRunView } from "./run/useRunView";

const ReliabilityTab = lazy(() => import("./run/ReliabilityTab"));
const ConfidenceTab = lazy(() => import("./run/ConfidenceTab"));
const ThresholdsTab = lazy(() => import("./run/ThresholdsTab"));
const UnknownsTab = lazy(() => import("./run/UnknownsTab"));
const ConfusionTab = lazy(() => import("./run/ConfusionTab"));
const ItemsTab = lazy(() => import("./run/ItemsTab"));

const TABS: { id: RunTab; label: string; hint: string }[] = [
  { id: "reliability", label: "Reliability", hint: "Does 90% sure mean 90% right?" },
  {
    id: "confidence",
    label: "Confidence",
    hint: "Confidence of right and wrong answers; metrics with intervals",
  },
  { id: "thresholds", label: "Thresholds", hint: "Multi-label items: per-label thresholds" },
  { id: "unknowns", label: "Unknowns", hint: "Not stated, escalation and the risk-coverage curve" },
  { id: "confusion", label: "Confusion", hint: "Confusion matrix and per-option precision and recall" },
  { id: "items", label: "Items", hint: "Every answer, confident-and-wrong first" },
];

/** Props every tab gets. */
export interface TabProps {
  run: RunSummary;
  item: ItemSpec | undefined;
  split: SplitChoice;
}

/** What the header's accuracy and ECE are: every item pooled, unlike the per-item figures of the tabs. */
const HEADLINE_HELP =
  "Every item's usable answers pooled (escalated and unlabelled ones left out); each item's own figures are on its tabs.";

/**
 * The action a run's status offers, if any: cancel while it is queued or running, resume after a cancel or a failure,
 * resume without its caps after it stopped at its budget.
 */
function offeredAction(
  status: RunSummary["status"],
): { action: "cancel" | "resume" | "resume-uncapped"; label: string } | null {
  if (status === "running" || status === "queued") return { action: "cancel", label: "Cancel run" };
  if (status === "cancelled" || status === "failed") return { action: "resume", label: "Resume run" };
  if (status === "stopped") return { action: "resume-uncapped", label: "Resume without the cap" };
  return null;
}

/** The header: name, actions, facts; the headline figures marked partial (`partial`) when they do not cover the run. */
function RunHeader({ run, partial, live }: { run: RunSummary; partial: PartialMark | null; live: boolean }) {
  const action = useRunAction();
  const offered = offeredAction(run.status);
  const headlineSplit = run.splits.includes("test") ? "test split" : "all splits";
  return (
    <div className="run-head">
      <p className="crumbs">
        <Link to="/">Runs</Link> / <span className="mono">{run.id}</span>
      </p>
      <div className="page-head">
        <RunName run={run} />
        <div className="actions">
          {run.status === "done" && (
            <>
              <Link className="button primary" to={`/runs/${run.id}/calibrate`}>
                Fit a calibration →
              </Link>
              <Link className="button" to={{ pathname: `/runs/${run.id}/calibrate`, hash: "check" }}>
                Check against a calibration
              </Link>
              <Link className="button" to={`/compare?runs=${run.id}`}>
                Compare…
              </Link>
            </>
          )}
          {offered && (
            <button
              type="button"
              className="button"
              onClick={() => action.mutate({ id: run.id, action: offered.action })}
            >
              {offered.label}
            </button>
          )}
        </div>
      </div>
      <dl className="facts">
        <div>
          <dt>Status</dt>
          <dd>
            <StatusBadge status={run.status} />
          </dd>
        </div>
        <div>
          <dt>Server</dt>
          <dd>{run.serverName}</dd>
        </div>
        <div>
          <dt>Served by</dt>
          <dd className="mono" title={run.servedBy.join(", ") || undefined}>
            {servedByLabel(run.servedBy)}
          </dd>
        </div>
        <div>
          <dt>Splits</dt>
          <dd>{run.splits.join(", ")}</dd>
        </div>
        <div title={`${HEADLINE_HELP} (${headlineSplit})`}>
          <dt>Accuracy, all items</dt>
          <dd>
            {headlineAccuracy(run.headline)} {partial && <PartialBadge mark={partial} />}{" "}
            <span className="muted small">{headlineSplit}</span>
          </dd>
        </div>
        <div
          title={`${HEADLINE_HELP} Plain (plug-in) ECE over 15 equal-width bins of the top-label confidence: biased upward; an item's tabs give its bias-corrected value with an interval.`}
        >
          <dt>Plain ECE, all items</dt>
          <dd>
            {pct(run.headline.ece)} {partial && <PartialBadge mark={partial} />}{" "}
            <span className="muted small">
              {run.headline.n !== undefined ? `n = ${count(run.headline.n)}, ` : ""}
              {headlineSplit}
            </span>
          </dd>
        </div>
        <div>
          <dt>Started</dt>
          <dd>{when(run.startedAt ?? run.createdAt)}</dd>
        </div>
        <div>
          <dt>Export</dt>
          <dd>
            <DownloadLink href={`/api/runs/${run.id}/export.csv`} filename={`${run.id}.csv`}>
              CSV
            </DownloadLink>{" "}
            ·{" "}
            <DownloadLink href={`/api/runs/${run.id}/export.json`} filename={`${run.id}.json`}>
              JSON
            </DownloadLink>{" "}
            ·{" "}
            <DownloadLink href={`/api/runs/${run.id}/report.json`} filename={`${run.id}-report.json`}>
              report
            </DownloadLink>
          </dd>
        </div>
      </dl>
      {partial && <PartialNote mark={partial} live={live} />}
      {action.error && <ErrorState error={action.error} title="The action failed" />}
      {run.error && <ErrorState error={new Error(run.error)} title="The run stopped with an error" />}
    </div>
  );
}

function Selectors({
  run,
  items,
  item,
  split,
}: {
  run: RunSummary;
  items: ItemSpec[];
  item?: ItemSpec;
  split: string;
}) {
  const [, set] = useRunView();
  return (
    <div className="toolbar">
      <label>
        Item{" "}
        <select
          value={item?.name ?? ""}
          onChange={(e) => set({ item: e.target.value, offset: 0, example: undefined, label: undefined })}
        >
          {items.map((it) => (
            <option key={it.name} value={it.name}>
              {it.name} ({it.kind}
              {it.notStated ? ", not stated allowed" : ""})
            </option>
          ))}
        </select>
      </label>
      <label>
        Split{" "}
        <select
          value={split}
          onChange={(e) => set({ split: e.target.value as SplitChoice, offset: 0, example: undefined })}
        >
          {[...run.splits, "all"].map((s) => (
            <option key={s} value={s}>
              {s === "all" ? "all splits" : s}
            </option>
          ))}
        </select>
      </label>
    </div>
  );
}

function TabPanel({ tab, ...props }: TabProps & { tab: RunTab }) {
  switch (tab) {
    case "reliability":
      return <ReliabilityTab {...props} />;
    case "confidence":
      return <ConfidenceTab {...props} />;
    case "thresholds":
      return <ThresholdsTab {...props} />;
    case "unknowns":
      return <UnknownsTab {...props} />;
    case "confusion":
      return <ConfusionTab {...props} />;
    case "items":
      return <ItemsTab {...props} />;
  }
}

/** The page. */
export default function RunPage() {
  const { id } = useParams();
  const run = useRun(id);
  const [view, setView, sp] = useRunView();
  const active = run.data?.status === "running" || run.data?.status === "queued";
  const events = useRunEvents(id, !!active);
  const dataset = useDataset(run.data?.dataset);
  if (run.error && !run.data)
    return (
      <ErrorState error={run.error} title={`Run ${id} could not be loaded`} retry={() => run.refetch()} />
    );
  if (!run.data) return <Loading label="Loading the run…" />;
  // the stream's final summary is stored as the run's (events.ts), so the run is always the latest known
  const r = run.data;
  const isActive = r.status === "running" || r.status === "queued";
  // once the run is no longer active, its stored progress: the stream's last event may predate the cancel
  const progress = isActive ? (events.progress ?? r.progress) : r.progress;
  const live = isActive && events.state === "open";
  const partial = partialMark(r.status, progress);
  const items = dataset.data?.items ?? [];
  const item = items.find((x) => x.name === view.item) ?? items[0];
  const split =
    view.split && (view.split === "all" || r.splits.includes(view.split as never))
      ? view.split
      : r.splits.includes("test")
        ? "test"
        : "all";
  return (
    // data-stream: the progress stream's state ("closed" once its `done` brought the final summary)
    <div className="page" data-stream={events.state}>
      <RunHeader run={r} partial={partial} live={live} />
      {(isActive || r.status !== "done") && (
        <ProgressPanel progress={progress} status={r.status} live={live} />
      )}
      {isActive ? (
        <p className="muted" role="status">
          The charts appear when the run is done.
        </p>
      ) : r.progress.done === 0 ? (
        <ErrorState error={new Error(r.error ?? "The run has no answers yet.")} title="Nothing to chart" />
      ) : (
        <>
          {dataset.error && (
            <ErrorState error={dataset.error} title="The dataset's items could not be loaded" />
          )}
          <Selectors run={r} items={items} item={item} split={split} />
          <Tabs
            label="Views of the run"
            tabs={TABS}
            current={view.tab}
            href={(t) => `/runs/${r.id}?${writeRunView(sp, { tab: t }).toString()}`}
            onSelect={(t) => setView({ tab: t })}
          />
          <section id="tabpanel" role="tabpanel" aria-labelledby={`tab-${view.tab}`} className="tabpanel">
            {partial && (
              <p className="partial-caption" data-testid="partial-caption">
                <PartialBadge mark={partial} /> Charts and metrics below are drawn from {count(partial.done)}{" "}
                of {count(partial.total)} examples: {partial.reason}.
              </p>
            )}
            {item ? (
              <Suspense fallback={<Loading label="Loading the view…" />}>
                <TabPanel tab={view.tab} run={r} item={item} split={split} />
              </Suspense>
            ) : (
              <Loading label="Loading the dataset's items…" />
            )}
          </section>
        </>
      )}
    </div>
  );
}
