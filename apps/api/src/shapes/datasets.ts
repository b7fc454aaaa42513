/** Datasets: summaries, details (task and label counts), pages of examples. */

import type { Task } from "@decision-workbench/datasets";
import { type Static, Type } from "typebox";
import { AnyValue, Name, Nullable, OpenObject, SplitSchema, StringEnum } from "./common.js";
import { EXAMPLES_PAGE } from "./limits.js";

const SplitCounts = Type.Object({ train: Type.Integer(), calibration: Type.Integer(), test: Type.Integer() });

/** A task definition, and a located dataset error (400 invalid_dataset details): the datasets package's own. */
export type { Task, ValidationError as DatasetError } from "@decision-workbench/datasets";

/** An item of a dataset as summaries and reports show it: kind, option names, whether Unknown is allowed. */
export const ItemSpec = Type.Object({
  name: Type.String(),
  kind: StringEnum(["choice", "yesno", "score", "multi"]),
  options: Type.Array(Type.String()),
  notStated: Type.Boolean(),
});
export type ItemSpec = Static<typeof ItemSpec>;

const summaryFields = {
  name: Type.String(),
  description: Type.String(),
  source: StringEnum(["bundled", "upload"]),
  hash: Type.String(),
  examples: Type.Integer(),
  splits: SplitCounts,
  items: Type.Array(ItemSpec),
};

/** The name of the person whose token uploaded it (`workbench tokens`), else null (and for a bundled one). */
const createdBy = Nullable(Type.String());

/** A dataset as listed. */
export const DatasetSummary = Type.Object({ ...summaryFields, createdBy });
export type DatasetSummary = Static<typeof DatasetSummary>;

/** A dataset with its task (the datasets package validates it) and label counts per split. */
export const DatasetDetail = Type.Object({
  ...summaryFields,
  task: OpenObject<Task>("a task definition (datasets/README.md)"),
  labelCounts: Type.Array(
    Type.Object({ item: Type.String(), split: SplitSchema, label: Type.String(), count: Type.Integer() }),
  ),
  createdBy,
});
export type DatasetDetail = Static<typeof DatasetDetail>;

/** One example. */
export const Example = Type.Object({
  id: Type.String(),
  state: AnyValue,
  labels: OpenObject<Record<string, string | string[]>>("gold labels by item"),
  meta: Type.Optional(OpenObject()),
  split: SplitSchema,
});

/** GET /api/datasets/:name/examples. */
export const ExamplePage = Type.Object({ total: Type.Integer(), examples: Type.Array(Example) });
export type ExamplePage = Static<typeof ExamplePage>;

/** Path `:name`. */
export const NameParams = Type.Object({ name: Name() }, { additionalProperties: false });

/** GET /api/datasets/:name/examples query. */
export const ExamplesQuery = Type.Object(
  {
    split: Type.Optional(SplitSchema),
    offset: Type.Optional(Type.Integer({ minimum: 0 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: EXAMPLES_PAGE.max })),
    q: Type.Optional(Type.String({ maxLength: 500 })),
  },
  { additionalProperties: false },
);
