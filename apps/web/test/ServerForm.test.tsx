import type { ServerInput } from "@decision-workbench/api/shapes";
import { cleanup, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ApiError } from "../src/api/client";
import { ServerForm } from "../src/components/ServerForm";
import { server } from "./fixtures";

afterEach(cleanup);

function type(label: string | RegExp, value: string) {
  fireEvent.change(screen.getByLabelText(label), { target: { value } });
}

describe("ServerForm", () => {
  it("lists what is wrong and sends nothing", () => {
    const onSubmit = vi.fn();
    render(<ServerForm onSubmit={onSubmit} />);
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
  });

  it("sends a new server with its key", () => {
    const onSubmit = vi.fn();
    render(<ServerForm onSubmit={onSubmit} />);
    type("Name", "Prod");
    type("Base URL", "https://d.example.com");
    type("Models", "m-1, m-2");
    type("API key", "sk-secret");
    fireEvent.click(screen.getByRole("button", { name: "Add server" }));
    expect(onSubmit).toHaveBeenCalledTimes(1);
    const input = onSubmit.mock.calls[0][0] as Partial<ServerInput>;
    expect(input).toMatchObject({ name: "Prod", models: ["m-1", "m-2"], apiKey: "sk-secret" });
  });

  it("never shows a stored key: the field is an empty password field marked “key set”", () => {
    render(<ServerForm server={server({ hasApiKey: true })} onSubmit={vi.fn()} />);
    const key = screen.getByLabelText("API key") as HTMLInputElement;
    expect(key.type).toBe("password");
    expect(key.value).toBe("");
    expect(key.placeholder).toBe("key set");
    expect(screen.getAllByText(/key set/i).length).toBeGreaterThan(0);
  });

  it("keeps the stored key unless a new one is typed or removal is asked", () => {
    const onSubmit = vi.fn();
    render(<ServerForm server={server({ hasApiKey: true })} onSubmit={onSubmit} />);
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
    render(<ServerForm server={server()} onSubmit={onSubmit} />);
    type("Requests a minute", "-5");
    fireEvent.click(screen.getByRole("button", { name: "Save changes" }));
    expect(onSubmit).not.toHaveBeenCalled();
    expect(screen.getByRole("alert").textContent).toMatch(/Requests a minute must be a number above 0/);
    type("Requests a minute", "3000");
    type("Input tokens a minute", "90000");
    fireEvent.click(screen.getByRole("button", { name: "Save changes" }));
    expect(onSubmit.mock.calls[0][0]).toMatchObject({ requestsPerMinute: 3000, inputTokensPerMinute: 90000 });
  });

  it("shows the API's error message as it is", () => {
    const error = new ApiError(409, "conflict", "a server named “Prod” exists already; pick another name");
    render(<ServerForm onSubmit={vi.fn()} error={error} />);
    expect(screen.getByRole("alert").textContent).toContain(
      "a server named “Prod” exists already; pick another name",
    );
    expect(screen.getByRole("alert").textContent).toContain("conflict");
  });
});
