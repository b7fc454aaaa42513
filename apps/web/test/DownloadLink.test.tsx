import { cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { DownloadLink } from "../src/components/DownloadLink";

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  sessionStorage.clear();
});

describe("DownloadLink", () => {
  it("is a plain download link without a token", () => {
    const fetch = vi.fn();
    vi.stubGlobal("fetch", fetch);
    render(
      <DownloadLink href="/api/runs/run_1/export.csv" filename="run_1.csv">
        CSV
      </DownloadLink>,
    );
    const link = screen.getByRole("link", { name: "CSV" });
    expect(link.getAttribute("href")).toBe("/api/runs/run_1/export.csv");
    expect(link.getAttribute("download")).toBe("run_1.csv");
    fireEvent.click(link);
    expect(fetch).not.toHaveBeenCalled();
  });

  it("with a token, fetches the file with the token in a header, never in the URL", async () => {
    sessionStorage.setItem("workbench-token", "team-token-0123456789");
    const fetch = vi.fn(async () => new Response("a,b\n1,2\n", { status: 200 }));
    vi.stubGlobal("fetch", fetch);
    const created = vi.fn(() => "blob:file");
    vi.stubGlobal("URL", Object.assign(URL, { createObjectURL: created, revokeObjectURL: vi.fn() }));
    render(
      <DownloadLink href="/api/runs/run_1/export.csv" filename="run_1.csv">
        CSV
      </DownloadLink>,
    );
    fireEvent.click(screen.getByRole("link", { name: "CSV" }));
    await waitFor(() => expect(created).toHaveBeenCalled());
    const [url, init] = fetch.mock.calls[0] as unknown as [string, RequestInit];
    expect(url).toBe("/api/runs/run_1/export.csv");
    expect((init.headers as Record<string, string>).authorization).toBe("Bearer team-token-0123456789");
  });

  it("shows the API's error when the download is refused", async () => {
    sessionStorage.setItem("workbench-token", "wrong-token-0123456789");
    const body = JSON.stringify({ error: { code: "unauthorized", message: "the bearer token is wrong" } });
    vi.stubGlobal(
      "fetch",
      vi.fn(async () => new Response(body, { status: 401 })),
    );
    render(
      <DownloadLink href="/api/runs/run_1/export.csv" filename="run_1.csv">
        CSV
      </DownloadLink>,
    );
    fireEvent.click(screen.getByRole("link", { name: "CSV" }));
    expect(await screen.findByRole("alert")).toHaveProperty("textContent", " the bearer token is wrong");
  });
});
