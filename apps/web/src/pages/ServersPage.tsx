/** /servers?edit=<id>|new: decision servers, add / edit (write-only key), check, delete. */

import type { Server, ServerCheck } from "@decision-workbench/api/shapes";
import { useSearchParams } from "react-router";
import { useCheckServer, useDeleteServer, useSaveServer, useServers } from "../api/servers";
import { ServerForm } from "../components/ServerForm";
import { Empty, ErrorState, Loading } from "../components/States";
import { duration, pct, when } from "../transforms/format";

function CheckResult({ result }: { result: ServerCheck }) {
  const p = result.probe;
  return (
    <div className={`check-result ${result.ok ? "ok" : "fail"}`} role="status">
      <strong>{result.ok ? "✓ The server answered." : "✗ The check failed."}</strong>
      <div>
        Models:{" "}
        {result.models ? (
          result.models.length ? (
            <ul className="inline-list">
              {result.models.map((m) => (
                <li key={m.name} title={m.description}>
                  <code>{m.name}</code>
                </li>
              ))}
            </ul>
          ) : (
            "none listed"
          )
        ) : (
          <span className="muted">
            not listed{result.modelsError ? `: ${result.modelsError}` : " (the server offers no /v1/models)"}
          </span>
        )}
      </div>
      <div>
        Probe to <code>{p.model}</code>: {p.status}
        {p.answer !== undefined && (
          <>
            {" "}
            · answer <strong>{typeof p.answer === "string" ? p.answer : JSON.stringify(p.answer)}</strong>
          </>
        )}
        {p.confidence !== undefined && <> · confidence {pct(p.confidence)}</>}
        {p.servedBy && (
          <>
            {" "}
            · served by <code>{p.servedBy}</code>
          </>
        )}{" "}
        · {duration(p.ms)}
      </div>
      {p.reason && <div className="error-message">{p.reason}</div>}
    </div>
  );
}

function ServerCard({ server, onEdit }: { server: Server; onEdit: () => void }) {
  const check = useCheckServer();
  const del = useDeleteServer();
  const remove = () => {
    if (window.confirm(`Delete ${server.name}?`)) del.mutate({ id: server.id });
  };
  return (
    <li className="panel server" aria-label={server.name}>
      <div className="page-head">
        <div>
          <h2>
            {server.name} {server.embedded && <span className="badge badge-queued">embedded</span>}
          </h2>
          <p className="mono small">{server.endpoint}</p>
        </div>
        <div className="actions">
          <button
            type="button"
            className="button"
            onClick={() => check.mutate(server.id)}
            disabled={check.isPending}
          >
            {check.isPending ? "Checking…" : "Check"}
          </button>
          <button type="button" className="button" onClick={onEdit}>
            Edit
          </button>
          {!server.embedded && (
            <button type="button" className="button danger" onClick={remove} disabled={del.isPending}>
              Delete
            </button>
          )}
        </div>
      </div>
      <dl className="facts">
        <div>
          <dt>Models</dt>
          <dd className="mono">{server.models.join(", ")}</dd>
        </div>
        <div>
          <dt>API key</dt>
          <dd>{server.hasApiKey ? "key set" : "none"}</dd>
        </div>
        <div>
          <dt>Timeout · retries · backoff</dt>
          <dd>
            {server.timeout} s · {server.retries} · {server.backoff} s
          </dd>
        </div>
        <div>
          <dt>Rate limit</dt>
          <dd>
            {server.requestsPerMinute === null && server.inputTokensPerMinute === null
              ? "none"
              : [
                  server.requestsPerMinute !== null &&
                    `${server.requestsPerMinute.toLocaleString("en-US")} requests a minute`,
                  server.inputTokensPerMinute !== null &&
                    `${server.inputTokensPerMinute.toLocaleString("en-US")} input tokens a minute`,
                ]
                  .filter(Boolean)
                  .join(" · ")}
          </dd>
        </div>
        <div>
          <dt>Prices per million tokens</dt>
          <dd>
            {server.inputPricePerMillion == null && server.outputPricePerMillion == null
              ? "none"
              : `${server.inputPricePerMillion ?? "none"} input · ${server.outputPricePerMillion ?? "none"} output`}
          </dd>
        </div>
        <div>
          <dt>Deterministic</dt>
          <dd>{server.deterministic ? "yes" : "no"}</dd>
        </div>
        <div>
          <dt>Added</dt>
          <dd>{when(server.createdAt)}</dd>
        </div>
      </dl>
      {check.error && <ErrorState error={check.error} title="The check could not run" />}
      {check.data && <CheckResult result={check.data} />}
      {del.error && (
        <div>
          <ErrorState error={del.error} title="The server was not deleted" />
          <button
            type="button"
            className="button danger"
            onClick={() => del.mutate({ id: server.id, force: true })}
          >
            Delete anyway, with its runs' link to it
          </button>
        </div>
      )}
    </li>
  );
}

/** The page. */
export default function ServersPage() {
  const [sp, setSp] = useSearchParams();
  const servers = useServers();
  const save = useSaveServer();
  const edit = sp.get("edit");
  const close = () => {
    save.reset();
    setSp({}, { replace: true });
  };
  const editing = edit && edit !== "new" ? servers.data?.find((s) => s.id === edit) : undefined;
  return (
    <div className="page">
      <div className="page-head">
        <h1>Decision servers</h1>
        <div className="actions">
          <button type="button" className="button primary" onClick={() => setSp({ edit: "new" })}>
            Add server
          </button>
        </div>
      </div>
      <p className="lead">
        Services that answer closed questions with probabilities (<code>POST /v1/decision</code>). Keys are
        write-only: stored encrypted, never shown, never exported.
      </p>
      {edit && (edit === "new" || editing) && (
        <section className="panel" aria-label={editing ? `Edit ${editing.name}` : "Add a server"}>
          <h2>{editing ? `Edit ${editing.name}` : "Add a server"}</h2>
          <ServerForm
            key={edit}
            server={editing}
            submitting={save.isPending}
            error={save.error ?? undefined}
            onCancel={close}
            onSubmit={(input) => save.mutate({ id: editing?.id, input }, { onSuccess: close })}
          />
        </section>
      )}
      {servers.error && !servers.data ? (
        <ErrorState error={servers.error} retry={() => servers.refetch()} />
      ) : !servers.data ? (
        <Loading label="Loading servers…" />
      ) : servers.data.length === 0 ? (
        <Empty title="No servers yet">Add the decision service you want to calibrate.</Empty>
      ) : (
        <ul className="cards" data-ready="servers">
          {servers.data.map((s) => (
            <ServerCard key={s.id} server={s} onEdit={() => setSp({ edit: s.id })} />
          ))}
        </ul>
      )}
    </div>
  );
}
