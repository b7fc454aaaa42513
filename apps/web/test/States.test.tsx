import { cleanup, fireEvent, render, screen, within } from "@testing-library/react";
import { MemoryRouter } from "react-router";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ApiError } from "../src/api/client";
import { ProblemNote, problemSentence } from "../src/components/ProblemNote";
import { ErrorState } from "../src/components/States";
import { describeError } from "../src/transforms/apiErrors";

afterEach(cleanup);

describe("ErrorState", () => {
  it("offers Try again where it can help (5xx) and keeps the API's words collapsed", () => {
    const retry = vi.fn();
    render(
      <ErrorState
        error={new ApiError(500, "internal_error", "the workbench failed unexpectedly; see its log")}
        retry={retry}
      />,
    );
    const alert = screen.getByRole("alert");
    expect(alert.textContent).toContain("The workbench failed while doing this; try again");
    fireEvent.click(within(alert).getByRole("button", { name: "Try again" }));
    expect(retry).toHaveBeenCalledOnce();
    expect(alert.querySelector("details")?.textContent).toContain("internal_error, HTTP 500");
  });

  it("offers no Try again for a refusal, and lists every problem rewritten", () => {
    render(
      <ErrorState
        error={
          new ApiError(422, "invalid_request", "body.timeout must be <= 3600; body.retries must be >= 0")
        }
        title="The server could not be saved"
        retry={vi.fn()}
      />,
    );
    const alert = screen.getByRole("alert");
    expect(within(alert).queryByRole("button", { name: "Try again" })).toBeNull();
    expect(
      within(alert)
        .getAllByRole("listitem")
        .slice(0, 2)
        .map((li) => li.textContent),
    ).toEqual(["Timeout must be at most 3600.", "Retries must be at least 0."]);
  });

  it("links the page to go to, inside the app's router", () => {
    render(
      <MemoryRouter>
        <ErrorState
          error={
            new ApiError(
              404,
              "not_found",
              'dataset "gone" does not exist; list the datasets with GET /api/datasets',
              [],
              {
                method: "GET",
                path: "/datasets/gone",
              },
            )
          }
        />
      </MemoryRouter>,
    );
    const alert = screen.getByRole("alert");
    expect(alert.textContent).toContain("Not found");
    expect(alert.textContent).toContain("This dataset does not exist; it may have been deleted.");
    expect(within(alert).getByRole("link", { name: "Go to the Datasets page" }).getAttribute("href")).toBe(
      "/datasets",
    );
  });

  it("asks for the token on a 401", () => {
    render(<ErrorState error={new ApiError(401, "unauthorized", "send the bearer token")} retry={vi.fn()} />);
    expect(screen.getByLabelText("Token (kept for this browser tab only)")).toBeTruthy();
    expect(screen.queryByRole("button", { name: "Try again" })).toBeNull();
  });
});

describe("ProblemNote", () => {
  it("says an unreachable workbench in describeError's words and keeps the API's in the same Technical details", () => {
    const error = new ApiError(0, "unreachable", "fetch failed");
    render(
      <ProblemNote
        title="The check could not run"
        sentences={[problemSentence(error, "Nothing was asked of the server.")]}
        error={error}
      />,
    );
    const note = screen.getByRole("alert");
    expect(note.textContent).toContain(describeError(error).sentence);
    const details = note.querySelector("details.technical-details") as HTMLDetailsElement;
    expect(details.open).toBe(false);
    expect(details.querySelector("summary")?.textContent).toBe("Technical details");
    expect(details.textContent).toContain("fetch failed");
  });

  it("keeps the fallback sentence for a refusal", () => {
    const error = new ApiError(409, "server_in_use", "1 run(s) use server");
    expect(problemSentence(error, "The workbench refused the delete.")).toBe(
      "The workbench refused the delete.",
    );
  });
});
