/** /datasets/:name?split=&q=&offset=&upload=1: bundled and uploaded datasets, label counts, example browser, upload. */

import type { DatasetDetail } from "@decision-workbench/api/shapes";
import { Link, useNavigate, useParams, useSearchParams } from "react-router";
import { useDataset, useDatasets, useDeleteDataset, useExamples, useUploadDataset } from "../api/datasets";
import { ScrollRegion } from "../components/ScrollRegion";
import { Empty, ErrorState, Loading } from "../components/States";
import { StateView } from "../components/StateView";
import { UploadForm } from "../components/UploadForm";
import { labelCountRows, sourceAndLicence } from "../transforms/datasets";
import { count, label } from "../transforms/format";
import { useSearchPatch } from "./useSearchPatch";

const PAGE = 10;

function LabelCounts({ d }: { d: DatasetDetail }) {
  const rows = labelCountRows(d);
  return (
    <ScrollRegion label="Label counts per split">
      <table className="table compact">
        <caption>Label counts per split</caption>
        <thead>
          <tr>
            <th scope="col">Item</th>
            <th scope="col">Label</th>
            <th scope="col" className="num">
              train
            </th>
            <th scope="col" className="num">
              calibration
            </th>
            <th scope="col" className="num">
              test
            </th>
            <th scope="col" className="num">
              total
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={`${r.item}/${r.label}`}>
              <td>{r.item}</td>
              <td>{r.label}</td>
              <td className="num">{count(r.train)}</td>
              <td className="num">{count(r.calibration)}</td>
              <td className="num">{count(r.test)}</td>
              <td className="num">{count(r.total)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollRegion>
  );
}

function Examples({ name }: { name: string }) {
  const [sp] = useSearchParams();
  const split = sp.get("split") ?? "";
  const q = sp.get("q") ?? "";
  const offset = Math.max(0, Number.parseInt(sp.get("offset") ?? "0", 10) || 0);
  const ex = useExamples(name, { split: split || undefined, q: q || undefined, offset, limit: PAGE });
  const patch = useSearchPatch();
  const set = (values: Record<string, string>) =>
    patch(Object.fromEntries(Object.entries(values).map(([k, v]) => [k, v === "0" ? undefined : v])));
  return (
    <section aria-label="Examples">
      <h3>Examples</h3>
      <div className="toolbar">
        <label>
          Split{" "}
          <select value={split} onChange={(e) => set({ split: e.target.value, offset: "0" })}>
            <option value="">all</option>
            <option value="train">train</option>
            <option value="calibration">calibration</option>
            <option value="test">test</option>
          </select>
        </label>
        <label>
          Search{" "}
          <input
            type="search"
            defaultValue={q}
            placeholder="words in the state"
            onKeyDown={(e) => e.key === "Enter" && set({ q: e.currentTarget.value, offset: "0" })}
            onBlur={(e) => e.currentTarget.value !== q && set({ q: e.currentTarget.value, offset: "0" })}
          />
        </label>
      </div>
      {ex.error && !ex.data ? (
        <ErrorState error={ex.error} retry={() => ex.refetch()} />
      ) : !ex.data ? (
        <Loading label="Loading examples…" />
      ) : ex.data.total === 0 ? (
        <Empty title="No examples match">Clear the search or pick another split.</Empty>
      ) : (
        <>
          <ol className="examples" start={offset + 1}>
            {ex.data.examples.map((e) => (
              <li key={e.id} className="panel example">
                <div className="example-head">
                  <span className="mono">{e.id}</span> <span className="badge">{e.split}</span>
                  {Object.entries(e.labels).map(([k, v]) => (
                    <span key={k} className="label-chip">
                      {k}: <strong>{label(v)}</strong>
                    </span>
                  ))}
                </div>
                <StateView state={e.state} />
              </li>
            ))}
          </ol>
          <div className="pager">
            <button
              type="button"
              className="button"
              disabled={offset === 0}
              onClick={() => set({ offset: String(Math.max(0, offset - PAGE)) })}
            >
              ← Previous
            </button>
            <span>
              {count(offset + 1)}–{count(Math.min(ex.data.total, offset + PAGE))} of {count(ex.data.total)}
            </span>
            <button
              type="button"
              className="button"
              disabled={offset + PAGE >= ex.data.total}
              onClick={() => set({ offset: String(offset + PAGE) })}
            >
              Next →
            </button>
          </div>
        </>
      )}
    </section>
  );
}

function Detail({ name }: { name: string }) {
  const d = useDataset(name);
  const del = useDeleteDataset();
  const navigate = useNavigate();
  if (d.error && !d.data) return <ErrorState error={d.error} retry={() => d.refetch()} />;
  if (!d.data) return <Loading label="Loading the dataset…" />;
  const x = d.data;
  return (
    <article className="dataset-detail" data-ready="dataset">
      <div className="page-head">
        <h2>{x.name}</h2>
        <div className="actions">
          <Link className="button primary" to={`/runs/new?dataset=${encodeURIComponent(x.name)}`}>
            Run it
          </Link>
          {x.source === "upload" && (
            <button
              type="button"
              className="button danger"
              onClick={() => del.mutate(x.name, { onSuccess: () => navigate("/datasets") })}
            >
              Delete
            </button>
          )}
        </div>
      </div>
      <p>{x.description}</p>
      {del.error && <ErrorState error={del.error} />}
      <dl className="facts">
        <div>
          <dt>Examples</dt>
          <dd>{count(x.examples)}</dd>
        </div>
        <div>
          <dt>train · calibration · test</dt>
          <dd>
            {count(x.splits.train)} · {count(x.splits.calibration)} · {count(x.splits.test)}
          </dd>
        </div>
        <div>
          <dt>SHA-256</dt>
          <dd className="mono small">{x.hash.slice(0, 16)}…</dd>
        </div>
        <div>
          <dt>Source · licence</dt>
          <dd className="small">{sourceAndLicence(x.task)}</dd>
        </div>
      </dl>
      <h3>Items</h3>
      <ul className="items-list">
        {x.task.items.map((it) => (
          <li key={it.name}>
            <strong>{it.name}</strong> <span className="badge">{it.kind}</span> {it.question}
            <div className="muted small">
              {(x.items.find((s) => s.name === it.name)?.options ?? []).join(" · ")}
              {it.notStated ? " · not stated" : ""}
            </div>
          </li>
        ))}
      </ul>
      <LabelCounts d={x} />
      <Examples name={x.name} />
    </article>
  );
}

/** The page. */
export default function DatasetsPage() {
  const { name } = useParams();
  const [sp, setSp] = useSearchParams();
  const list = useDatasets();
  const upload = useUploadDataset();
  const navigate = useNavigate();
  const showUpload = sp.get("upload") === "1";
  return (
    <div className="page">
      <div className="page-head">
        <h1>Datasets</h1>
        <div className="actions">
          <button
            type="button"
            className="button"
            aria-expanded={showUpload}
            onClick={() => setSp(showUpload ? {} : { upload: "1" })}
          >
            {showUpload ? "Close upload" : "Upload a dataset"}
          </button>
        </div>
      </div>
      {showUpload && (
        <section className="panel" aria-label="Upload a dataset">
          <h2>Upload a dataset</h2>
          <UploadForm
            submitting={upload.isPending}
            error={upload.error ?? undefined}
            onSubmit={(body) =>
              upload.mutate(body, { onSuccess: (d) => navigate(`/datasets/${encodeURIComponent(d.name)}`) })
            }
          />
        </section>
      )}
      {list.error && !list.data ? (
        <ErrorState error={list.error} retry={() => list.refetch()} />
      ) : !list.data ? (
        <Loading label="Loading datasets…" />
      ) : (
        <div className="master-detail">
          <nav aria-label="Datasets">
            <ul className="dataset-list">
              {list.data.map((d) => (
                <li key={d.name}>
                  <Link
                    to={`/datasets/${encodeURIComponent(d.name)}`}
                    aria-current={d.name === name ? "page" : undefined}
                    className={d.name === name ? "current" : undefined}
                  >
                    <strong>{d.name}</strong>{" "}
                    <span className="badge">{d.source === "bundled" ? "bundled" : "uploaded"}</span>
                    <div className="muted small">
                      {count(d.examples)} examples · {d.items.map((i) => i.name).join(", ")}
                      {d.createdBy ? ` · uploaded by ${d.createdBy}` : null}
                    </div>
                  </Link>
                </li>
              ))}
            </ul>
          </nav>
          {name ? (
            <Detail name={name} />
          ) : (
            <Empty title="Pick a dataset">Its items, label counts per split and examples show here.</Empty>
          )}
        </div>
      )}
    </div>
  );
}
