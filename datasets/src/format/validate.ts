import { validateTask } from "../task.js";
import type { Example, Task } from "../types.js";
import { checkExample, indexTask } from "./check.js";
import type { ValidationError } from "./errors.js";

/**
 * Check a task and an in-memory example list: every error (task errors first), each located by its 0-based
 * index in the list as `examples[12] (id "abc"), "labels.is_spam": ...`. Empty when all is well.
 */
export function validateDataset(task: Task, examples: Example[]): ValidationError[] {
  const errors = validateTask(task);
  if (errors.length > 0) return errors;
  const index = indexTask(task);
  const firstIndex = new Map<string, number>();
  examples.forEach((e, i) => {
    const { id, issues } = checkExample(e, index);
    const where = `examples[${i}]${id !== undefined ? ` (id ${JSON.stringify(id)})` : ""}`;
    for (const issue of issues)
      errors.push({
        code: issue.code,
        index: i,
        id,
        field: issue.field || undefined,
        message: `${where}${issue.field ? `, ${JSON.stringify(issue.field)}` : ""}: ${issue.text}`,
      });
    if (e && typeof e === "object" && e.split === undefined)
      errors.push({
        code: "invalid-split",
        index: i,
        id,
        field: "split",
        message: `${where}: "split" is missing; use splitOf(id)`,
      });
    if (id === undefined) return;
    const first = firstIndex.get(id);
    if (first !== undefined)
      errors.push({
        code: "duplicate-id",
        index: i,
        id,
        field: "id",
        message: `${where}, "id": id ${JSON.stringify(id)} is a duplicate: it first appeared at examples[${first}]; ids must be unique`,
      });
    else firstIndex.set(id, i);
  });
  return errors;
}
