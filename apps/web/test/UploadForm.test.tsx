import { cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ApiError } from "../src/api/client";
import { UploadForm } from "../src/components/UploadForm";

afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

const type = (label: string, value: string, nth = 0) =>
  fireEvent.change(screen.getAllByLabelText(label)[nth], { target: { value } });

/** Fills the builder: a dataset "tickets" with one choice item "team". */
function fillBuilder() {
  type("Dataset name", "tickets");
  type("Description", "Which team a ticket goes to.");
  type("Source", "our help desk, 2024");
  type("Licence", "internal");
  type("Item name", "team");
  type("Question", "Which team?");
  type("Options", "billing\nshipping");
}

describe("UploadForm", () => {
  it("sends the task built in the form, with the source and licence as given", () => {
    const onSubmit = vi.fn();
    render(<UploadForm onSubmit={onSubmit} />);
    fillBuilder();
    fireEvent.click(screen.getByLabelText(/The answer may be “not stated”/));
    type("Examples", "id,state,team\na,x,billing");
    type("Format", "csv");
    fireEvent.click(screen.getByRole("button", { name: "Upload" }));
    expect(onSubmit).toHaveBeenCalledWith({
      task: {
        name: "tickets",
        description: "Which team a ticket goes to.",
        provenance: { source: "our help desk, 2024", package: "", licence: "internal", labels: "" },
        items: [
          {
            name: "team",
            kind: "choice",
            question: "Which team?",
            options: ["billing", "shipping"],
            notStated: true,
          },
        ],
      },
      format: "csv",
      content: "id,state,team\na,x,billing",
    });
  });

  it("marks each missing field once and moves the focus to the first", () => {
    const onSubmit = vi.fn();
    render(<UploadForm onSubmit={onSubmit} />);
    fireEvent.click(screen.getByRole("button", { name: "Upload" }));
    expect(onSubmit).not.toHaveBeenCalled();
    expect(screen.getByRole("alert").textContent).toBe(
      "7 things to fix before uploading; each is marked on its field.",
    );
    const name = screen.getByLabelText("Dataset name");
    expect(name.getAttribute("aria-invalid")).toBe("true");
    expect(document.activeElement).toBe(name);
    expect(screen.getAllByText("Give the dataset a name.")).toHaveLength(1);
    expect(screen.getByLabelText("Options").getAttribute("aria-invalid")).toBe("true");
    // fixed as typed
    type("Dataset name", "tickets");
    expect(screen.queryByText("Give the dataset a name.")).toBeNull();
  });

  it("lists the API's errors by line once, as sentences, and says nothing was stored", () => {
    const message = [
      "tickets.jsonl: 2 errors, nothing imported:",
      '  line 2, column 40, "labels.team": "sales" is not an option of team; expected one of "billing", "shipping"',
      "  line 4, column 1: not valid JSON",
    ].join("\n");
    const error = new ApiError(400, "invalid_dataset", message, [
      { code: "invalid-json", line: 4, column: 1, message: "line 4, column 1: not valid JSON" },
      {
        code: "label-not-option",
        line: 2,
        column: 40,
        field: "labels.team",
        message:
          'line 2, column 40, "labels.team": "sales" is not an option of team; expected one of "billing", "shipping"',
      },
    ]);
    render(<UploadForm onSubmit={vi.fn()} error={error} />);
    const alert = screen.getByRole("alert");
    expect(within(alert).getByText("The examples have 2 problems; nothing was stored.")).toBeTruthy();
    expect(
      within(alert)
        .getAllByRole("listitem")
        .map((li) => li.textContent),
    ).toEqual([
      'Line 2, column 40: "sales" is not an option of team; expected one of "billing", "shipping".',
      "Line 4, column 1: Not valid JSON.",
    ]);
    // each problem once in the whole form
    expect(document.body.textContent?.split("is not an option of team")).toHaveLength(2);
    expect(document.body.textContent?.split("ot valid JSON")).toHaveLength(2);
  });

  it("shows the API's refusal of the task on the builder's field, not in a list", () => {
    const error = new ApiError(
      400,
      "invalid_task",
      "task items[0].options: needs at least 2 entries, has 1",
      [
        {
          code: "invalid-task",
          field: "items[0].options",
          message: "task items[0].options: needs at least 2 entries, has 1",
        },
      ],
    );
    render(<UploadForm onSubmit={vi.fn()} error={error} />);
    expect(screen.getByLabelText("Options").getAttribute("aria-invalid")).toBe("true");
    expect(screen.getAllByText("Needs at least 2 entries, has 1.")).toHaveLength(1);
    expect(screen.getByRole("alert").textContent).toBe(
      "The task has 1 problem; nothing was stored. Each problem of the task is marked on its field.",
    );
  });

  it("fills the form from a task JSON pasted under Task JSON", () => {
    render(<UploadForm onSubmit={vi.fn()} />);
    const task = {
      name: "t",
      description: "d",
      provenance: { source: "s", package: "", licence: "CC0-1.0", labels: "" },
      items: [{ name: "q", kind: "score", question: "How much?", levels: ["low", "high"] }],
    };
    type("Task definition (JSON)", JSON.stringify(task));
    expect((screen.getByLabelText("Dataset name") as HTMLInputElement).value).toBe("t");
    expect((screen.getByLabelText("Licence") as HTMLInputElement).value).toBe("CC0-1.0");
    expect((screen.getByLabelText("Kind") as HTMLSelectElement).value).toBe("score");
    expect((screen.getByLabelText("Levels, lowest first") as HTMLTextAreaElement).value).toBe("low\nhigh");
    type("Task definition (JSON)", '{"name": ');
    fireEvent.click(screen.getByRole("button", { name: "Upload" }));
    expect(screen.getByLabelText("Task definition (JSON)").getAttribute("aria-invalid")).toBe("true");
  });

  it("fills the form from a chosen task file, and takes an examples file's format from its name", async () => {
    render(<UploadForm onSubmit={vi.fn()} />);
    const task = { name: "from-file", description: "d", items: [] };
    const taskFile = new File([JSON.stringify(task)], "task.json", { type: "application/json" });
    fireEvent.change(screen.getByLabelText("Choose a task file"), { target: { files: [taskFile] } });
    await waitFor(() =>
      expect((screen.getByLabelText("Dataset name") as HTMLInputElement).value).toBe("from-file"),
    );
    const examples = new File(["id,state,q\na,x,low"], "examples.csv", { type: "text/csv" });
    fireEvent.change(screen.getByLabelText("Choose an examples file"), { target: { files: [examples] } });
    await waitFor(() =>
      expect((screen.getByLabelText("Examples") as HTMLTextAreaElement).value).toBe("id,state,q\na,x,low"),
    );
    expect((screen.getByLabelText("Format") as HTMLSelectElement).value).toBe("csv");
  });

  it("downloads JSONL and CSV templates made from the built task", async () => {
    const blobs: Blob[] = [];
    const names: string[] = [];
    vi.spyOn(URL, "createObjectURL").mockImplementation((b) => {
      blobs.push(b as Blob);
      return "blob:template";
    });
    vi.spyOn(HTMLAnchorElement.prototype, "click").mockImplementation(function (this: HTMLAnchorElement) {
      names.push(this.download);
    });
    render(<UploadForm onSubmit={vi.fn()} />);
    fireEvent.click(screen.getByRole("button", { name: "Download JSONL template" }));
    expect(blobs).toHaveLength(0); // nothing to make a template from yet: the fields say what is missing
    expect(screen.getByLabelText("Dataset name").getAttribute("aria-invalid")).toBe("true");
    fillBuilder();
    fireEvent.click(screen.getByRole("button", { name: "Download JSONL template" }));
    fireEvent.click(screen.getByRole("button", { name: "Download CSV template" }));
    expect(names).toEqual(["tickets.jsonl", "tickets.csv"]);
    const jsonl = await blobs[0].text();
    expect(JSON.parse(jsonl.split("\n")[0]).labels).toEqual({ team: "billing" });
    expect((await blobs[1].text()).split("\n")[0]).toBe("id,state,team");
  });
});
