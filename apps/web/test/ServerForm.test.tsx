import type { ServerCheck, ServerInput } from "@decision-workbench/api/shapes";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import type { ReactNode } from "react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ApiError } from "../src/api/client";
import { ServerForm } from "../src/components/ServerForm";
import { server } from "./fixtures";

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

function renderForm(node: ReactNode) {
  const qc = new QueryClient({ defaultOptions: { queries: { retry: false }, mutations: { retry: false } } });
  return render(<QueryClientProvider client={qc}>{node}</QueryClientProvider>);
}

function type(label: string | RegExp, value: string) {
  fireEvent.change(screen.getByLabelText(label), { target: { value } });
}

/** Answers every API call with `check`, recording the calls. */
function stubCheck(check: ServerCheck) {
  const calls: { url: string; body: unknown }[] = [];
  vi.stubGlobal(
    "fetch",
    vi.fn(async (url: string, init?: RequestInit) => {
      calls.push({ url, body: init?.body ? JSON.parse(String(init.body)) : undefined });
      return new Response(JSON.stringify(check), {
        status: 200,
        headers: { "content-type": "application/json" },
      });
    }),
  );
  return calls;
}

const listed: ServerCheck = {
  ok: true,
  models: [{ name: "workbench-latest" }, { name: "lexical", description: "word counts" }],
  probe: { model: "workbench-latest", status: "answered", answer: "yes", confidence: 0.9, ms: 5 },
};

describe("ServerForm", () => {
  it("lists what is wrong, puts each problem on its field, focuses the first, and sends nothing", () => {
    const onSubmit = vi.fn();
    renderForm(<ServerForm onSubmit={onSubmit} />);
    type("Base URL", "not a url");
    fireEvent.click(screen.getByRole("button", { name: "Add server" }));
    expect(onSubmit).not.toHaveBeenCalled();
    const alert = screen.getByRole("alert");
    expect(alert.textContent).toMatch(/3 things to fix/);
    expect(alert.textContent).toMatch(/Give the server a name/);
    expect(alert.textContent).toMatch(/“not a url” is not an http\(s\) URL/);
    expect(alert.textContent).toMatch(/at least one model/);
    // each message is tied to its field for screen readers
    const url = screen.getByLabelText("Base URL");
    expect(url.getAttribute("aria-invalid")).toBe("true");
    const described = url.getAttribute("aria-describedby")?.split(" ") ?? [];
    expect(
      described.some((id) => document.getElementById(id)?.textContent?.includes("not an http(s) URL")),
    ).toBe(true);
    expect(document.activeElement).toBe(screen.getByLabelText("Name"));
    // once the name is there, the next submit moves the focus to the base URL
    type("Name", "Prod");
    fireEvent.click(screen.getByRole("button", { name: "Add server" }));
    expect(document.activeElement).toBe(url);
  });

  it("sends a new server with its key", () => {
    const onSubmit = vi.fn();
    renderForm(<ServerForm onSubmit={onSubmit} />);
    // the form takes the focus when it opens
    expect(document.activeElement).toBe(screen.getByLabelText("Name"));
    type("Name", "Prod");
    type("Base URL", "https://d.example.com");
    type("Models", "m-1, m-2");
    type("API key", "sk-secret");
    fireEvent.click(screen.getByRole("button", { name: "Add server" }));
    expect(onSubmit).toHaveBeenCalledTimes(1);
    const input = onSubmit.mock.calls[0][0] as Partial<ServerInput>;
    expect(input).toMatchObject({ name: "Prod", models: ["m-1", "m-2"], apiKey: "sk-secret" });
  });

  it("checks the server as typed and offers the models it lists to tick, keeping a typed name", async () => {
    const calls = stubCheck(listed);
    const onSubmit = vi.fn();
    renderForm(<ServerForm onSubmit={onSubmit} />);
    type("Name", "Prod");
    type("Base URL", "https://d.example.com");
    type("API key", "sk-typed");
    type("Models", "my-own");
    fireEvent.click(screen.getByRole("button", { name: "Check server" }));
    const pick = await screen.findByRole("checkbox", { name: /lexical/ });
    expect(calls).toEqual([
      {
        url: "/api/servers/check",
        body: {
          baseUrl: "https://d.example.com",
          models: ["my-own"],
          apiKey: "sk-typed",
          timeout: 30,
          retries: 2,
          backoff: 0.5,
        },
      },
    ]);
    expect(screen.getByRole("status").textContent).toContain(
      "The server lists 2 models: tick the ones to use, or type another name.",
    );
    fireEvent.click(pick);
    expect((screen.getByLabelText("Models") as HTMLInputElement).value).toBe("my-own, lexical");
    expect((pick as HTMLInputElement).checked).toBe(true);
    // the typed list is offered as suggestions too
    const list = document.getElementById(screen.getByLabelText("Models").getAttribute("list") ?? "");
    expect([...(list?.querySelectorAll("option") ?? [])].map((o) => o.value)).toEqual([
      "workbench-latest",
      "lexical",
    ]);
    fireEvent.click(screen.getByRole("checkbox", { name: /workbench-latest/ }));
    fireEvent.click(screen.getByRole("checkbox", { name: /lexical/ }));
    fireEvent.click(screen.getByRole("button", { name: "Add server" }));
    expect(onSubmit.mock.calls[0][0]).toMatchObject({ models: ["my-own", "workbench-latest"] });
    // another address makes the list stale: it goes, the models chosen stay
    type("Base URL", "https://elsewhere.example.com");
    expect(screen.queryByRole("checkbox", { name: /lexical/ })).toBeNull();
    expect((screen.getByLabelText("Models") as HTMLInputElement).value).toBe("my-own, workbench-latest");
  });

  it("checks an edited server through its stored settings while its URL and key are unchanged", async () => {
    const calls = stubCheck(listed);
    renderForm(<ServerForm server={server({ id: "srv_x", hasApiKey: true })} onSubmit={vi.fn()} />);
    fireEvent.click(screen.getByRole("button", { name: "Check server" }));
    await screen.findByRole("checkbox", { name: /lexical/ });
    expect(calls.map((c) => c.url)).toEqual(["/api/servers/srv_x/check"]);
  });

  it("refuses to check a base URL that is not one, on the field, with the focus there", () => {
    const calls = stubCheck(listed);
    renderForm(<ServerForm onSubmit={vi.fn()} />);
    type("Name", "Prod");
    fireEvent.click(screen.getByRole("button", { name: "Check server" }));
    const url = screen.getByLabelText("Base URL");
    expect(url.getAttribute("aria-invalid")).toBe("true");
    expect(document.activeElement).toBe(url);
    expect(calls).toEqual([]);
  });

  it("never shows a stored key: the field is an empty password field marked “key set”", () => {
    renderForm(<ServerForm server={server({ hasApiKey: true })} onSubmit={vi.fn()} />);
    const key = screen.getByLabelText("API key") as HTMLInputElement;
    expect(key.type).toBe("password");
    expect(key.value).toBe("");
    expect(key.placeholder).toBe("key set");
    expect(screen.getAllByText(/key set/i).length).toBeGreaterThan(0);
  });

  it("keeps the stored key unless a new one is typed or removal is asked", () => {
    const onSubmit = vi.fn();
    renderForm(<ServerForm server={server({ hasApiKey: true })} onSubmit={onSubmit} />);
    fireEvent.click(screen.getByRole("button", { name: "Save changes" }));
    expect("apiKey" in (onSubmit.mock.calls[0][0] as object)).toBe(false);

    type("API key", "rotated");
    fireEvent.click(screen.getByRole("button", { name: "Save changes" }));
    expect(onSubmit.mock.calls[1][0]).toMatchObject({ apiKey: "rotated" });

    fireEvent.click(screen.getByLabelText("Remove the stored key"));
    expect((screen.getByLabelText("API key") as HTMLInputElement).value).toBe("");
    expect((screen.getByLabelText("API key") as HTMLInputElement).disabled).toBe(true);
    fireEvent.click(screen.getByRole("button", { name: "Save changes" }));
    expect(onSubmit.mock.calls[2][0]).toMatchObject({ apiKey: null });
  });

  it("sends the server's rate limits, and says what is wrong with one", () => {
    const onSubmit = vi.fn();
    renderForm(<ServerForm server={server()} onSubmit={onSubmit} />);
    type("Requests a minute", "-5");
    fireEvent.click(screen.getByRole("button", { name: "Save changes" }));
    expect(onSubmit).not.toHaveBeenCalled();
    expect(screen.getByRole("alert").textContent).toMatch(/Requests a minute must be a number above 0/);
    expect(document.activeElement).toBe(screen.getByLabelText("Requests a minute"));
    type("Requests a minute", "3000");
    type("Input tokens a minute", "90000");
    fireEvent.click(screen.getByRole("button", { name: "Save changes" }));
    expect(onSubmit.mock.calls[0][0]).toMatchObject({ requestsPerMinute: 3000, inputTokensPerMinute: 90000 });
  });

  it("puts the API's refusal of a field on that field, in words, with the code only in the details", async () => {
    const error = new ApiError(400, "invalid_request", "body.timeout must be <= 3600");
    renderForm(<ServerForm server={server()} onSubmit={vi.fn()} error={error} />);
    const timeout = screen.getByLabelText("Timeout (s)");
    expect(timeout.getAttribute("aria-invalid")).toBe("true");
    await waitFor(() => expect(document.activeElement).toBe(timeout));
    const describedBy = timeout.getAttribute("aria-describedby")?.split(" ") ?? [];
    expect(describedBy.map((id) => document.getElementById(id)?.textContent)).toContain(
      "Timeout must be at most 3600 seconds.",
    );
    const note = screen.getByText("The server was not saved").closest("div") as HTMLElement;
    const details = note.querySelector("details") as HTMLDetailsElement;
    expect(details.open).toBe(false);
    expect(details.textContent).toContain("invalid_request");
    // outside the collapsed details, no API path or code is shown
    const visible = [...document.querySelectorAll("form *")]
      .filter((el) => el.children.length === 0 && !el.closest("details"))
      .map((el) => el.textContent)
      .join(" ");
    expect(visible).not.toMatch(/invalid_request|body\.timeout|HTTP 400/);
  });

  it("says an API refusal that names no field once, above the buttons, and focuses it", async () => {
    const error = new ApiError(409, "server_embedded", "the embedded reference server's base URL is fixed");
    renderForm(<ServerForm onSubmit={vi.fn()} error={error} />);
    const note = screen.getByText("The server was not saved").closest("div") as HTMLElement;
    expect(note.textContent).toContain("The embedded reference server's base URL is fixed.");
    await waitFor(() => expect(document.activeElement).toBe(note));
    expect(screen.getAllByText("The embedded reference server's base URL is fixed.")).toHaveLength(1);
  });
});
