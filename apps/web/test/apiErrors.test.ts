import { describe, expect, it } from "vitest";
import { ApiError } from "../src/api/client";
import { describeError, fieldProblems, rewriteProblem, withoutApiHints } from "../src/transforms/apiErrors";

const get = (path: string) => ({ method: "GET", path });

describe("describeError", () => {
  it("says a run that does not exist may have been deleted, links the Runs page, offers no retry", () => {
    const p = describeError(
      new ApiError(
        404,
        "not_found",
        'run "run_x" does not exist; list the runs with GET /api/runs',
        [],
        get("/runs/run_x"),
      ),
    );
    expect(p.sentence).toBe("This run does not exist; it may have been deleted.");
    expect(p.link).toEqual({ to: "/", label: "Go to the Runs page" });
    expect(p.retry).toBe(false);
    expect(p.technical).toMatchObject({ code: "not_found", status: 404, request: "GET /api/runs/run_x" });
  });

  it("names what a form asked for that does not exist", () => {
    const p = describeError(
      new ApiError(
        404,
        "not_found",
        'dataset "gone" does not exist; list the datasets with GET /api/datasets',
        [],
        {
          method: "POST",
          path: "/runs",
        },
      ),
    );
    expect(p.sentence).toBe("The dataset “gone” does not exist; it may have been deleted.");
    expect(p.link?.to).toBe("/datasets");
  });

  it("offers a retry only where it can help: network, 5xx and 429", () => {
    const retry = (status: number, code = "x") => describeError(new ApiError(status, code, "m")).retry;
    expect([retry(0, "unreachable"), retry(500, "internal_error"), retry(503), retry(429)]).toEqual([
      true,
      true,
      true,
      true,
    ]);
    expect([retry(400), retry(404), retry(409), retry(422)]).toEqual([false, false, false, false]);
  });

  it("lists every problem of a refused request, rewritten, with no API paths", () => {
    const p = describeError(
      new ApiError(400, "invalid_request", "body.timeout must be <= 3600; body.retries must be an integer"),
    );
    expect(p.sentence).toBe("2 things to fix:");
    expect(p.problems).toEqual(["Timeout must be at most 3600.", "Retries must be a whole number."]);
  });

  it("keeps a plain error's message as its sentence", () => {
    expect(describeError(new Error("the server answered 502")).sentence).toBe("The server answered 502.");
  });
});

describe("rewriteProblem", () => {
  it("rewrites schema errors with the form's label and unit", () => {
    const labels = { timeout: { label: "Timeout", unit: "seconds" }, name: "Name" };
    expect(rewriteProblem("body.timeout must be <= 3600", labels)).toEqual({
      field: "timeout",
      text: "Timeout must be at most 3600 seconds.",
    });
    expect(rewriteProblem("body.timeout must be >= 1", labels).text).toBe(
      "Timeout must be at least 1 second.",
    );
    expect(rewriteProblem("body must have required property", labels).field).toBeUndefined();
    expect(rewriteProblem('body is missing the required field "name"', labels)).toEqual({
      field: "name",
      text: "Name is required.",
    });
    expect(rewriteProblem("body.name must NOT have more than 200 characters", labels).text).toBe(
      "Name must have at most 200 characters.",
    );
    expect(rewriteProblem("body.maxCost must be of type number,null").text).toBe(
      "Max cost must be a number or empty.",
    );
  });

  it("drops clauses and parentheses that speak to programs", () => {
    expect(
      withoutApiHints(
        'model "m" is not one of server "s"\'s models ("a"); add it to the server first (PATCH /api/servers/srv_1)',
      ),
    ).toBe('model "m" is not one of server "s"\'s models ("a"); add it to the server first');
  });
});

describe("fieldProblems", () => {
  it("splits the problems a form has fields for from the rest", () => {
    const error = new ApiError(
      400,
      "invalid_request",
      'body.timeout must be <= 3600; body has an unknown field "x"; allowed fields: a, b',
    );
    expect(fieldProblems(error, ["timeout"], { timeout: { label: "Timeout", unit: "seconds" } })).toEqual({
      byField: { timeout: "Timeout must be at most 3600 seconds." },
      rest: ["The workbench does not take a setting named “x”; it was not saved."],
    });
  });

  it("places a problem whose field is named before a colon on that field", () => {
    const error = new ApiError(
      400,
      "invalid_request",
      "body.baseUrl: the host 10.0.0.5 is a private address",
    );
    expect(fieldProblems(error, ["baseUrl"], { baseUrl: "Base URL" })).toEqual({
      byField: { baseUrl: "Base URL: the host 10.0.0.5 is a private address." },
      rest: [],
    });
  });

  it("takes a detail's field when the API names one", () => {
    const error = new ApiError(400, "invalid_request", "name …", [
      { field: "name", message: "name has 300 characters; give at most 200" },
    ]);
    expect(fieldProblems(error, ["name"]).byField).toEqual({
      name: "Name has 300 characters; give at most 200.",
    });
  });
});
