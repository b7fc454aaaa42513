/**
 * The in-page dialog that asks before a server is deleted: it names the runs that use the server (links to each,
 * and their count), says that their results stay, and deletes with `?force=true` when runs use it. A modal
 * `<dialog>` named by its heading: the focus moves to "Cancel" when it opens, Escape cancels, and the caller gets
 * the focus back through `onClose`.
 */

import type { Server } from "@decision-workbench/api/shapes";
import { useEffect, useId, useRef } from "react";
import { Link } from "react-router";
import { ApiError } from "../api/client";
import { useServerRuns } from "../api/serverRuns";
import { useDeleteServer } from "../api/servers";
import { runTitle } from "../transforms/compare";
import { deleteSummary } from "../transforms/deleteServer";
import { when } from "../transforms/format";
import { ProblemNote, problemSentence } from "./ProblemNote";
import "./DeleteServerDialog.css";

/** The dialog for `server`; `onClose(deleted)` after a delete, Cancel or Escape. */
export function DeleteServerDialog({
  server,
  onClose,
}: {
  server: Server;
  onClose: (deleted: boolean) => void;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const cancel = useRef<HTMLButtonElement>(null);
  const titleId = useId();
  const bodyId = useId();
  const usage = useServerRuns(server.id);
  const del = useDeleteServer();

  useEffect(() => {
    const d = dialog.current;
    if (!d) return;
    if (typeof d.showModal === "function" && !d.open) d.showModal();
    else d.setAttribute("open", "");
    cancel.current?.focus();
    return () => {
      if (d.open && typeof d.close === "function") d.close();
    };
  }, []);

  const summary = usage.data ? deleteSummary(usage.data) : null;
  const inUse = del.error instanceof ApiError && del.error.code === "server_in_use";
  // mutateAsync settles even when the card (and this dialog) is gone once the list is refetched, which is when a
  // per-call onSuccess would no longer be called
  const remove = () =>
    del.mutateAsync({ id: server.id, force: summary?.force ?? false }).then(
      () => onClose(true),
      // a run that started meanwhile shows up in the list; the next press forces
      () => void usage.refetch(),
    );

  return (
    <dialog
      ref={dialog}
      className="delete-dialog"
      role="alertdialog"
      aria-modal="true"
      aria-labelledby={titleId}
      aria-describedby={bodyId}
      onCancel={(e) => {
        e.preventDefault();
        if (!del.isPending) onClose(false);
      }}
    >
      <h2 id={titleId}>Delete the server “{server.name}”?</h2>
      <div id={bodyId}>
        {usage.isPending ? (
          <p role="status">Looking for the runs that use it…</p>
        ) : usage.error ? (
          <p>
            The runs that use it could not be listed. If any do, the workbench refuses the delete and says so.
          </p>
        ) : summary ? (
          <>
            <p>{summary.lead}</p>
            {summary.named.length > 0 && (
              <ul className="delete-dialog-runs">
                {summary.named.map((r) => (
                  <li key={r.id}>
                    <Link to={`/runs/${r.id}`}>{runTitle(r)}</Link>{" "}
                    <span className="muted small">
                      · {r.status} · {when(r.createdAt)}
                    </span>
                  </li>
                ))}
                {summary.more && <li className="muted">{summary.more}</li>}
              </ul>
            )}
            {summary.keep && <p>{summary.keep}</p>}
            {summary.cancels && <p className="delete-dialog-warn">{summary.cancels}</p>}
          </>
        ) : null}
        <p>The server's settings and key are removed; this cannot be undone.</p>
      </div>
      {del.error && (
        <ProblemNote
          title="The server was not deleted"
          sentences={[
            inUse
              ? "A run started using it while this dialog was open; it is listed above now. Press Delete again to delete the server anyway."
              : problemSentence(del.error, "The workbench refused the delete; the details say why."),
          ]}
          error={del.error}
        />
      )}
      <div className="form-actions">
        <button
          type="button"
          className="button danger"
          onClick={remove}
          disabled={del.isPending || usage.isPending}
        >
          {del.isPending ? "Deleting…" : summary?.force ? "Delete server, keep the runs" : "Delete server"}
        </button>
        <button type="button" className="button" ref={cancel} onClick={() => onClose(false)}>
          Cancel
        </button>
      </div>
    </dialog>
  );
}
