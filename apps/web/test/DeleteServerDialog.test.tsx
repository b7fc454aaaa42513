import type { ServerRuns } from "@decision-workbench/api/shapes";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { MemoryRouter } from "react-router";
import { afterEach, describe, expect, it, vi } from "vitest";
import { DeleteServerDialog } from "../src/components/DeleteServerDialog";
import { server } from "./fixtures";

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

/** The API as the dialog meets it: the runs of the server, then the answers to DELETE in turn. */
function stubApi(usage: ServerRuns[], deletes: Response[]) {
  const calls: string[] = [];
  vi.stubGlobal(
    "fetch",
    vi.fn(async (url: string, init?: RequestInit) => {
      calls.push(`${init?.method ?? "GET"} ${url}`);
      if ((init?.method ?? "GET") === "GET")
        return Response.json(usage.length > 1 ? usage.shift() : usage[0], { status: 200 });
      return deletes.shift() ?? new Response(null, { status: 204 });
    }),
  );
  return calls;
}

function renderDialog(onClose = vi.fn()) {
  const qc = new QueryClient({ defaultOptions: { queries: { retry: false }, mutations: { retry: false } } });
  render(
    <QueryClientProvider client={qc}>
      <MemoryRouter>
        <DeleteServerDialog server={server({ id: "srv_old", name: "Older weights" })} onClose={onClose} />
      </MemoryRouter>
    </QueryClientProvider>,
  );
  return onClose;
}

const run = (id: string, name: string | null, status: ServerRuns["runs"][number]["status"] = "done") => ({
  id,
  name,
  dataset: "penguins",
  model: "workbench-latest",
  status,
  createdAt: "2026-11-26T10:00:00.000Z",
});

describe("DeleteServerDialog", () => {
  it("names the runs that use the server, links each, and deletes with force", async () => {
    const calls = stubApi(
      [{ count: 2, runs: [run("run_b", "after the swap", "running"), run("run_a", null)] }],
      [],
    );
    const onClose = renderDialog();
    const dialog = screen.getByRole("alertdialog", { name: "Delete the server “Older weights”?" });
    expect(document.activeElement).toBe(screen.getByRole("button", { name: "Cancel" }));
    const link = await screen.findByRole("link", { name: "after the swap" });
    expect(link.getAttribute("href")).toBe("/runs/run_b");
    expect(screen.getByRole("link", { name: "penguins on workbench-latest" }).getAttribute("href")).toBe(
      "/runs/run_a",
    );
    expect(dialog.textContent).toContain("2 runs use this server:");
    expect(dialog.textContent).toContain("Their results stay");
    expect(dialog.textContent).toContain("1 of them is still running and will be cancelled.");
    fireEvent.click(screen.getByRole("button", { name: "Delete server, keep the runs" }));
    await waitFor(() => expect(onClose).toHaveBeenCalledWith(true));
    expect(calls).toEqual(["GET /api/servers/srv_old/runs", "DELETE /api/servers/srv_old?force=true"]);
  });

  it("deletes a server no run uses without force; Cancel deletes nothing", async () => {
    const calls = stubApi([{ count: 0, runs: [] }], []);
    const onClose = renderDialog();
    await screen.findByText("No run uses this server.");
    fireEvent.click(screen.getByRole("button", { name: "Cancel" }));
    expect(onClose).toHaveBeenCalledWith(false);
    fireEvent.click(screen.getByRole("button", { name: "Delete server" }));
    await waitFor(() => expect(onClose).toHaveBeenCalledWith(true));
    expect(calls).toEqual(["GET /api/servers/srv_old/runs", "DELETE /api/servers/srv_old"]);
  });

  it("says so when a run started meanwhile, lists it, and forces the next delete", async () => {
    const refused = Response.json(
      { error: { code: "server_in_use", message: '1 run(s) use server "Older weights"; pass ?force=true' } },
      { status: 409 },
    );
    const calls = stubApi(
      [
        { count: 0, runs: [] },
        { count: 1, runs: [run("run_c", "started meanwhile")] },
      ],
      [refused],
    );
    const onClose = renderDialog();
    await screen.findByText("No run uses this server.");
    fireEvent.click(screen.getByRole("button", { name: "Delete server" }));
    await screen.findByRole("link", { name: "started meanwhile" });
    const note = screen.getByText("The server was not deleted").closest("div") as HTMLElement;
    expect(note.textContent).toContain("A run started using it while this dialog was open");
    // the API's words are kept in the collapsed details
    expect(note.querySelector("details")?.textContent).toContain("server_in_use");
    expect(onClose).not.toHaveBeenCalled();
    fireEvent.click(screen.getByRole("button", { name: "Delete server, keep the runs" }));
    await waitFor(() => expect(onClose).toHaveBeenCalledWith(true));
    expect(calls.filter((c) => c.startsWith("DELETE"))).toEqual([
      "DELETE /api/servers/srv_old",
      "DELETE /api/servers/srv_old?force=true",
    ]);
  });
});
