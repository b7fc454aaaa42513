/**
 * Items: the answers, confident-and-wrong first, with filters, the state, every probability and the reasoning. A
 * picked answer's details open beside the list in a wide window, and in the list under its row in a narrow one.
 */
import { ITEMS_PAGE } from "@decision-workbench/api/limits";
import type { ItemRow } from "@decision-workbench/api/shapes";
import { Fragment, useEffect, useRef, useSyncExternalStore } from "react";
import { useItemsAbove } from "../../api/confidentWrong";
import { ScrollRegion, useScrollFocus } from "../../components/ScrollRegion";
import { Segmented } from "../../components/Segmented";
import { Empty, ErrorState, Loading } from "../../components/States";
import { StateView } from "../../components/StateView";
import { count, label, pct, plural } from "../../transforms/format";
import { reasoningBlocks } from "../../transforms/reasoning";
import { servedByLabel } from "../../transforms/servedBy";
import { ITEM_FILTERS } from "../../transforms/urlState";
import type { TabProps } from "../RunPage";
import { ConfidentThreshold, useConfidentThreshold } from "./ConfidentThreshold";
import { useRunView } from "./useRunView";

const PAGE = ITEMS_PAGE.default;
/** The window width under which the list and the details stack (the CSS breakpoint of `.split-view`). */
const NARROW = "(max-width: 820px)";
const COLUMNS = 5;

/** True while the window is narrower than {@link NARROW}. */
function useNarrow(): boolean {
  return useSyncExternalStore(
    (changed) => {
      const query = window.matchMedia(NARROW);
      query.addEventListener("change", changed);
      return () => query.removeEventListener("change", changed);
    },
    () => window.matchMedia(NARROW).matches,
    () => false,
  );
}
const FILTER_TEXT: Record<(typeof ITEM_FILTERS)[number], string> = {
  "confident-wrong": "Confident and wrong",
  wrong: "Wrong",
  unknown: "Not stated (Unknown)",
  escalated: "Escalated",
  all: "All",
};

function isWrong(r: ItemRow): boolean {
  if (typeof r.correct === "boolean") return !r.correct;
  if (r.status !== "answered" && r.status !== "unknown") return false;
  if (r.gold === null) return false;
  const a = Array.isArray(r.answer) ? [...r.answer].sort().join("|") : r.answer;
  const g = Array.isArray(r.gold) ? [...r.gold].sort().join("|") : r.gold;
  return a !== g;
}

/** The service's reasoning, in a box that scrolls (and takes focus) when it is long. */
function Reasoning({ text }: { text: string }) {
  const { ref, props } = useScrollFocus<HTMLPreElement>("Reasoning");
  return (
    <pre ref={ref} className="state-text" {...props}>
      {text}
    </pre>
  );
}

function Detail({ row }: { row: ItemRow }) {
  const probs = Object.entries(row.probabilities ?? {}).sort((a, b) => b[1] - a[1]);
  const name = `Example ${row.exampleId}`;
  const { ref, props } = useScrollFocus<HTMLElement>(name);
  return (
    <section ref={ref} className="panel detail" aria-label={name} {...props}>
      <h3 className="mono">{row.exampleId}</h3>
      <dl className="facts">
        <div>
          <dt>Gold</dt>
          <dd>{label(row.gold)}</dd>
        </div>
        <div>
          <dt>Answer</dt>
          <dd className={isWrong(row) ? "wrong" : undefined}>{label(row.answer)}</dd>
        </div>
        <div>
          <dt>Confidence</dt>
          <dd>{pct(row.confidence)}</dd>
        </div>
        <div>
          <dt>Status</dt>
          <dd>{row.status}</dd>
        </div>
        <div>
          <dt>Served by</dt>
          <dd className="mono" title={row.servedBy ?? undefined}>
            {row.servedBy ? servedByLabel([row.servedBy]) : "—"}
          </dd>
        </div>
      </dl>
      {row.reason && (
        <p>
          <strong>Escalation reason:</strong> {row.reason}
        </p>
      )}
      <h4>Probabilities</h4>
      {probs.length ? (
        <ul className="probs">
          {probs.map(([k, p]) => (
            <li key={k}>
              <span className="prob-label">{k}</span>
              <span className="prob-bar" aria-hidden="true">
                <span style={{ width: `${Math.max(0.5, p * 100)}%` }} />
              </span>
              <span className="num">{pct(p)}</span>
            </li>
          ))}
        </ul>
      ) : (
        <p className="muted">None: the decision was escalated.</p>
      )}
      <h4>Reasoning</h4>
      {reasoningBlocks(row.reasoning).length ? (
        reasoningBlocks(row.reasoning).map((b) => (
          <div key={b.label ?? "reasoning"} className="reasoning">
            {b.label && <strong>{b.label}</strong>}
            <Reasoning text={b.text} />
            {b.tokens !== undefined && <span className="muted small">{b.tokens} reasoning tokens</span>}
          </div>
        ))
      ) : (
        <p className="muted">
          The service returned no reasoning (start a run with return_reasoning to keep it).
        </p>
      )}
      <h4>State</h4>
      <StateView state={row.state} />
    </section>
  );
}

/** The tab. */
export default function ItemsTab({ run, item, split }: TabProps) {
  const [view, set] = useRunView();
  const [threshold, setThreshold] = useConfidentThreshold();
  const items = useItemsAbove(
    run.id,
    { item: item?.name, split, filter: view.filter, label: view.label, offset: view.offset, limit: PAGE },
    threshold,
  );
  const rows = items.data?.rows ?? [];
  const selected = rows.find((r) => r.exampleId === view.example);
  // in a narrow window the details open in the list, under the row picked, not under the whole list
  const inline = useNarrow();
  // an address that names an example (a link from Compare, or shared) scrolls its row into view, once per example
  const selectedRow = useRef<HTMLTableRowElement>(null);
  const scrolledTo = useRef<string>(undefined);
  useEffect(() => {
    const row = selectedRow.current;
    if (!rows.length || !row || !view.example || scrolledTo.current === view.example) return;
    scrolledTo.current = view.example;
    const box = row.getBoundingClientRect();
    if (box.top < 0 || box.bottom > window.innerHeight) row.scrollIntoView({ block: "start" });
  }, [rows, view.example]);
  return (
    <>
      <div className="toolbar">
        <Segmented
          legend="Show"
          name="filter"
          options={ITEM_FILTERS}
          value={view.filter}
          text={(f) => FILTER_TEXT[f]}
          onChange={(f) => set({ filter: f, offset: 0, example: undefined })}
        />
        <label>
          Gold label{" "}
          <select
            value={view.label ?? ""}
            onChange={(e) => set({ label: e.target.value || undefined, offset: 0, example: undefined })}
          >
            <option value="">any</option>
            {(item?.options ?? []).concat(item?.notStated ? ["not stated"] : []).map((o) => (
              <option key={o} value={o}>
                {o}
              </option>
            ))}
          </select>
        </label>
        {view.filter === "confident-wrong" && (
          <ConfidentThreshold
            threshold={threshold}
            onChange={setThreshold}
            total={items.data ? plural(items.data.total, "answer") : undefined}
          />
        )}
      </div>
      {items.error && !items.data ? (
        <ErrorState error={items.error} retry={() => items.refetch()} />
      ) : !items.data ? (
        <Loading label="Loading answers…" />
      ) : items.data.total === 0 ? (
        <Empty title="No answers match">
          {view.filter === "confident-wrong"
            ? `No wrong answer reaches ${Math.round(threshold * 1000) / 10}% confidence: lower the threshold, or pick “Wrong” to see them all.`
            : "Try another filter: “All” shows every answer of this item and split."}
        </Empty>
      ) : (
        <div className="split-view" data-ready="items">
          <div>
            <ScrollRegion label={`Answers of ${item?.name ?? "the item"}`}>
              <table className="table items">
                <caption className="visually-hidden">Answers of {item?.name}</caption>
                <thead>
                  <tr>
                    <th scope="col">Example</th>
                    <th scope="col">Gold</th>
                    <th scope="col">Answer</th>
                    <th scope="col" className="num">
                      Confidence
                    </th>
                    <th scope="col">Status</th>
                  </tr>
                </thead>
                <tbody>
                  {rows.map((r) => (
                    <Fragment key={r.exampleId}>
                      <tr
                        className={r.exampleId === view.example ? "selected" : undefined}
                        ref={r === selected ? selectedRow : undefined}
                      >
                        <td>
                          <button
                            type="button"
                            className="link mono"
                            aria-pressed={r.exampleId === view.example}
                            onClick={() => set({ example: r.exampleId })}
                          >
                            {r.exampleId}
                          </button>
                        </td>
                        <td>{label(r.gold)}</td>
                        <td className={isWrong(r) ? "wrong" : undefined}>
                          {label(r.answer)}
                          {isWrong(r) && <span className="visually-hidden"> (wrong)</span>}
                        </td>
                        <td className="num">{pct(r.confidence)}</td>
                        <td>{r.status}</td>
                      </tr>
                      {inline && r === selected && (
                        <tr className="detail-row">
                          <td colSpan={COLUMNS}>
                            <Detail row={r} />
                          </td>
                        </tr>
                      )}
                    </Fragment>
                  ))}
                </tbody>
              </table>
            </ScrollRegion>
            <div className="pager">
              <button
                type="button"
                className="button"
                disabled={view.offset === 0}
                onClick={() => set({ offset: Math.max(0, view.offset - PAGE), example: undefined })}
              >
                ← Previous
              </button>
              <span>
                {count(view.offset + 1)}–{count(Math.min(items.data.total, view.offset + PAGE))} of{" "}
                {count(items.data.total)}
              </span>
              <button
                type="button"
                className="button"
                disabled={view.offset + PAGE >= items.data.total}
                onClick={() => set({ offset: view.offset + PAGE, example: undefined })}
              >
                Next →
              </button>
            </div>
          </div>
          {inline ? null : selected ? (
            <Detail row={selected} />
          ) : (
            <Empty title="Pick an example">
              Its state, every probability and the service's reasoning show here.
            </Empty>
          )}
        </div>
      )}
    </>
  );
}
