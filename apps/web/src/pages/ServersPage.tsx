/**
 * /servers?edit=<id>|new: decision servers, add / edit (write-only key; the check lists the models to pick),
 * check, and delete through an in-page dialog that names the runs using the server.
 */

import type { Server } from "@decision-workbench/api/shapes";
import { useEffect, useRef, useState } from "react";
import { useSearchParams } from "react-router";
import { useCheckServer, useSaveServer, useServers } from "../api/servers";
import { DeleteServerDialog } from "../components/DeleteServerDialog";
import { ProblemNote, problemSentence } from "../components/ProblemNote";
import { ServerCheckPanel } from "../components/ServerCheckPanel";
import { ServerForm } from "../components/ServerForm";
import { Empty, ErrorState, Loading } from "../components/States";
import { when } from "../transforms/format";

function ServerCard({
  server,
  onEdit,
  onDeleted,
}: {
  server: Server;
  onEdit: () => void;
  onDeleted: () => void;
}) {
  const check = useCheckServer();
  const [deleting, setDeleting] = useState(false);
  const deleteButton = useRef<HTMLButtonElement>(null);
  /** Set when the dialog closed without a delete: the focus goes back to Delete once the modal is gone. */
  const [refocus, setRefocus] = useState(false);
  useEffect(() => {
    if (!deleting && refocus) {
      deleteButton.current?.focus();
      setRefocus(false);
    }
  }, [deleting, refocus]);
  const closeDialog = (deleted: boolean) => {
    setDeleting(false);
    if (deleted) onDeleted();
    else setRefocus(true);
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
            <button
              type="button"
              className="button danger"
              ref={deleteButton}
              onClick={() => setDeleting(true)}
              aria-haspopup="dialog"
            >
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
      {check.error && (
        <ProblemNote
          title="The check could not run"
          sentences={[problemSentence(check.error, "Nothing was asked of the server; the details say why.")]}
          error={check.error}
        />
      )}
      {check.data && <ServerCheckPanel check={check.data} />}
      {deleting && <DeleteServerDialog server={server} onClose={closeDialog} />}
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
  const heading = useRef<HTMLHeadingElement>(null);
  /** Bumped by each delete: the focus goes to the page's heading once the dialog and the card are gone. */
  const [deletes, setDeletes] = useState(0);
  useEffect(() => {
    if (deletes > 0) heading.current?.focus();
  }, [deletes]);
  return (
    <div className="page">
      <div className="page-head">
        <h1 ref={heading} tabIndex={-1}>
          Decision servers
        </h1>
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
      {edit && edit !== "new" && servers.data && !editing && (
        <Empty
          title="That server is not here"
          action={
            <button type="button" className="button" onClick={close}>
              Close
            </button>
          }
        >
          The address asks to edit a server that is not in the list below; it may have been deleted.
        </Empty>
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
            <ServerCard
              key={s.id}
              server={s}
              onEdit={() => setSp({ edit: s.id })}
              onDeleted={() => setDeletes((n) => n + 1)}
            />
          ))}
        </ul>
      )}
    </div>
  );
}
