/**
 * What both stores do alike, over the few reads each makes in its own SQL and transactions: runs without their
 * bookkeeping, tasks and states of bundled or uploaded datasets, an upload's examples, predictions page by page or all at once, one
 * item's analysis columns, a new run's item specs.
 */

import type { State, Task } from "@decision-workbench/datasets";
import type { State as WireState } from "@decision-workbench/scorer";
import { type ItemSpec, taskSpecs } from "../analysis/item-spec.js";
import { bundledStates, bundledTaskOf } from "../catalog/bundled.js";
import { type AnswerRow, looseValues, PAGE_EXAMPLES, predictionsOf } from "./answer-rows.js";
import { columnsOf, decodeColumns, type ItemColumns, joinColumns } from "./item-columns.js";
import { SPLIT_NAMES, valueColumns } from "./item-values.js";
import { type Raw, wireStateOf } from "./rows.js";
import type {
  ExampleRow,
  PredictionFilter,
  PredictionRow,
  RunFilter,
  RunRow,
  Split,
  StoredRun,
  UploadRow,
} from "./types.js";

/** What one item's analysis columns are made of besides its packed chunks, read with them (one read transaction). */
export interface ItemParts {
  /** The run's item specs (JSON), or undefined when there is no such run. */
  specs: string | undefined;
  /** Its loose item_values rows, in run order. */
  loose: Raw[];
}

export abstract class StoreBase {
  abstract getStoredRun(id: string): Promise<StoredRun | undefined>;
  abstract listStoredRuns(filter?: RunFilter): Promise<StoredRun[]>;
  abstract getUpload(name: string): Promise<UploadRow | undefined>;
  abstract uploadWithExamples(
    name: string,
  ): Promise<{ upload: UploadRow; examples: readonly ExampleRow[] } | undefined>;
  /** The stored JSON texts of some examples' states of a complete upload, by id (none while it is pending). */
  protected abstract stateTexts(dataset: string, ids: string[]): Promise<Map<string, string>>;
  /** At most PAGE_EXAMPLES stored answers of a run after ordinal `after`, in run order, on `splits` (all: none). */
  protected abstract answerPage(runId: string, after: number, splits?: Split[]): Promise<AnswerRow[]>;
  /** The stored answers of some examples of a run. */
  protected abstract answersOf(runId: string, exampleIds: string[]): Promise<AnswerRow[]>;
  /**
   * What one item's analysis columns are made of, read in one read transaction: each packed chunk after chunk
   * number `after` in order, handed to `chunk` with its number as it is read (a few at a time, not all at once),
   * then the specs and loose rows.
   */
  protected abstract visitItemParts(
    runId: string,
    itemIndex: number,
    chunk: (bytes: Uint8Array, index: number) => void,
    after?: number,
  ): Promise<ItemParts>;

  async getRun(id: string): Promise<RunRow | undefined> {
    return this.getStoredRun(id);
  }

  async listRuns(filter: RunFilter = {}): Promise<RunRow[]> {
    return this.listStoredRuns(filter);
  }

  async getTask(dataset: string): Promise<Task | undefined> {
    return bundledTaskOf(dataset) ?? (await this.getUpload(dataset))?.task;
  }

  async getStates(dataset: string, ids: string[]): Promise<Map<string, State>> {
    return this.readStates(dataset, ids, (text) => JSON.parse(text) as State);
  }

  async getWireStates(dataset: string, ids: string[]): Promise<Map<string, WireState>> {
    return this.readStates<WireState>(dataset, ids, wireStateOf);
  }

  /** States of some examples by id, each made from its stored JSON text by `of` (bundled: the loaded states). */
  private async readStates<T>(
    dataset: string,
    ids: string[],
    of: (text: string) => T,
  ): Promise<Map<string, T>> {
    if (bundledTaskOf(dataset)) return (await bundledStates(dataset, ids)) as Map<string, T>;
    const out = new Map<string, T>();
    for (const [id, text] of await this.stateTexts(dataset, ids)) out.set(id, of(text));
    return out;
  }

  async allExamples(name: string): Promise<ExampleRow[]> {
    return (await this.uploadWithExamples(name))?.examples.slice() ?? [];
  }

  async listPredictions(runId: string, filter: PredictionFilter = {}): Promise<PredictionRow[]> {
    const out: PredictionRow[] = [];
    for await (const page of this.predictionPages(runId, filter)) for (const r of page) out.push(r);
    return out;
  }

  async *predictionPages(runId: string, filter: PredictionFilter = {}): AsyncGenerator<PredictionRow[]> {
    const splits = filter.split === undefined ? undefined : [filter.split].flat();
    // each page starts after the previous page's last example: examples written meanwhile are not seen twice
    for (let after = -1; ; ) {
      const rows = await this.answerPage(runId, after, splits);
      const page: PredictionRow[] = [];
      for (const row of rows) page.push(...predictionsOf(runId, row, filter.item));
      if (page.length) yield page;
      if (rows.length < PAGE_EXAMPLES) return;
      after = rows[rows.length - 1].ordinal;
    }
  }

  async predictionsFor(
    runId: string,
    item: string,
    exampleIds: string[],
  ): Promise<Map<string, PredictionRow>> {
    const out = new Map<string, PredictionRow>();
    for (const row of await this.answersOf(runId, exampleIds)) {
      const p = predictionsOf(runId, row, item)[0];
      if (p) out.set(row.example_id, p);
    }
    return out;
  }

  async itemColumns(runId: string, itemIndex: number, splits?: readonly Split[]): Promise<ItemColumns> {
    // read together: a commit that packs rows meanwhile is seen whole or not at all
    const chunks: Uint8Array[] = [];
    const { specs, loose } = await this.visitItemParts(runId, itemIndex, (bytes) => {
      chunks.push(bytes);
    });
    const rowK = rowKOf(specs, itemIndex);
    const parts = [...chunks.map(decodeColumns), columnsOf(rowK, looseValues(loose, itemIndex))];
    return joinColumns(
      rowK,
      parts.filter((p) => p.n > 0),
      splitCodes(splits),
    );
  }

  async eachItemPart(
    runId: string,
    itemIndex: number,
    splits: readonly Split[] | undefined,
    visit: (part: ItemColumns, chunk: number | null) => void,
    after = -1,
  ): Promise<void> {
    const codes = splitCodes(splits);
    const { specs, loose } = await this.visitItemParts(
      runId,
      itemIndex,
      (bytes, index) => visit(joinColumns(0, [decodeColumns(bytes)], codes), index),
      after,
    );
    const rowK = rowKOf(specs, itemIndex);
    const rest = joinColumns(rowK, [columnsOf(rowK, looseValues(loose, itemIndex))], codes);
    if (rest.n > 0) visit(rest, null);
  }

  /** A new run with its item specs: the given ones, else its dataset's task's (none for a dataset not there). */
  protected async withItems(run: StoredRun): Promise<StoredRun> {
    if (run.items) return run;
    const task = await this.getTask(run.dataset);
    return { ...run, items: task ? taskSpecs(task) : [] };
  }
}

/** The number of probabilities a row of the item holds, from the run's specs (JSON; 0 when there is no such item). */
function rowKOf(specs: string | undefined, itemIndex: number): number {
  const spec = (JSON.parse(specs ?? "[]") as ItemSpec[])[itemIndex];
  return spec ? valueColumns(spec).length : 0;
}

/** Split names as the columns' split codes (undefined: every split). */
function splitCodes(splits: readonly Split[] | undefined): number[] | undefined {
  return splits?.map((s) => SPLIT_NAMES.indexOf(s));
}
