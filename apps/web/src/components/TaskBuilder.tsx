/**
 * The upload's task builder: the dataset's name, description and provenance, and its items (name, question,
 * kind, options, whether "not stated" is allowed), each problem shown on its field.
 */

import {
  type BuilderErrors,
  type BuilderItem,
  type BuilderValues,
  emptyItem,
  ITEM_KINDS,
  type ItemKind,
  itemKey,
  KIND_TEXT,
} from "../transforms/taskBuilder";
import { Field } from "./Field";
import "./TaskBuilder.css";

type TextKey = "name" | "description" | "source" | "licence" | "labels" | "package";

/** What the options field is called and says for each kind. */
const OPTIONS_TEXT: Record<ItemKind, { label: string; hint: string }> = {
  choice: {
    label: "Options",
    hint: 'One a line; add a description after ": " if it helps (billing: invoices and refunds).',
  },
  yesno: {
    label: "Descriptions of yes and no (optional)",
    hint: 'Leave empty, or write "yes: …" then "no: …" on two lines.',
  },
  score: { label: "Levels, lowest first", hint: 'One a line; add a description after ": " if it helps.' },
  multi: {
    label: "Options (an example may have any of them)",
    hint: 'One a line; add a description after ": " if it helps.',
  },
};

function ItemEditor({
  item,
  index,
  errors,
  removable,
  onChange,
  onRemove,
}: {
  item: BuilderItem;
  index: number;
  errors: BuilderErrors;
  removable: boolean;
  onChange: (item: BuilderItem) => void;
  onRemove: () => void;
}) {
  const set = <K extends keyof BuilderItem>(k: K, value: BuilderItem[K]) => onChange({ ...item, [k]: value });
  const options = OPTIONS_TEXT[item.kind];
  const title = `Item ${index + 1}${item.name.trim() ? `: ${item.name.trim()}` : ""}`;
  return (
    <fieldset className="builder-item">
      <legend>{title}</legend>
      <div className="builder-item-grid">
        <Field
          label="Item name"
          hint="The label's key in the examples file."
          error={errors[itemKey(index, "name")]}
        >
          {(a) => (
            <input
              {...a}
              name={itemKey(index, "name")}
              value={item.name}
              onChange={(e) => set("name", e.target.value)}
              autoComplete="off"
              spellCheck={false}
            />
          )}
        </Field>
        <Field label="Kind" error={errors[itemKey(index, "kind")]}>
          {(a) => (
            <select
              {...a}
              name={itemKey(index, "kind")}
              value={item.kind}
              onChange={(e) => set("kind", e.target.value as ItemKind)}
            >
              {ITEM_KINDS.map((k) => (
                <option key={k} value={k}>
                  {KIND_TEXT[k]}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field
          label="Question"
          hint="What the service is asked about each example."
          error={errors[itemKey(index, "question")]}
        >
          {(a) => (
            <input
              {...a}
              name={itemKey(index, "question")}
              value={item.question}
              onChange={(e) => set("question", e.target.value)}
            />
          )}
        </Field>
        <Field label={options.label} hint={options.hint} error={errors[itemKey(index, "options")]}>
          {(a) => (
            <textarea
              {...a}
              name={itemKey(index, "options")}
              rows={item.kind === "yesno" ? 2 : 4}
              value={item.options}
              onChange={(e) => set("options", e.target.value)}
              spellCheck={false}
            />
          )}
        </Field>
      </div>
      <div className="builder-item-foot">
        <label className="check">
          <input
            type="checkbox"
            name={itemKey(index, "notStated")}
            checked={item.notStated}
            onChange={(e) => set("notStated", e.target.checked)}
          />
          The answer may be “not stated” (the example does not say)
        </label>
        {errors[itemKey(index, "notStated")] && (
          <div className="field-error">{errors[itemKey(index, "notStated")]}</div>
        )}
        {removable && (
          <button type="button" className="button small" onClick={onRemove}>
            Remove {item.name.trim() ? `“${item.name.trim()}”` : `item ${index + 1}`}
          </button>
        )}
      </div>
    </fieldset>
  );
}

/** The builder's fields; `onChange` receives the whole new values. */
export function TaskBuilder({
  values,
  errors,
  onChange,
}: {
  values: BuilderValues;
  errors: BuilderErrors;
  onChange: (values: BuilderValues) => void;
}) {
  const text = (key: TextKey, label: string, hint?: string) => (
    <Field label={label} hint={hint} error={errors[key]}>
      {(a) => (
        <input
          {...a}
          name={key}
          value={values[key]}
          onChange={(e) => onChange({ ...values, [key]: e.target.value })}
        />
      )}
    </Field>
  );
  const setItem = (i: number, item: BuilderItem) =>
    onChange({ ...values, items: values.items.map((x, j) => (j === i ? item : x)) });
  return (
    <div className="task-builder">
      <div className="builder-grid">
        {text("name", "Dataset name", 'Letters, digits, ".", "_" or "-"; it appears in links.')}
        <Field label="Description" hint="What the examples are and what is asked." error={errors.description}>
          {(a) => (
            <textarea
              {...a}
              name="description"
              rows={2}
              value={values.description}
              onChange={(e) => onChange({ ...values, description: e.target.value })}
            />
          )}
        </Field>
        {text("source", "Source", "Where the examples come from: who made them, a paper or a link.")}
        {text("licence", "Licence", "The licence the examples are under, e.g. CC0-1.0, or “internal”.")}
        {text("labels", "How the labels were made (optional)", "e.g. by hand, from a field of the record.")}
        {text(
          "package",
          "Package or file (optional)",
          "The file or package version the examples were taken from.",
        )}
      </div>
      <h3 className="builder-items-head">Items: the questions asked about each example</h3>
      {errors.items && <div className="field-error">{errors.items}</div>}
      {values.items.map((it, i) => (
        <ItemEditor
          key={i}
          item={it}
          index={i}
          errors={errors}
          removable={values.items.length > 1}
          onChange={(item) => setItem(i, item)}
          onRemove={() => onChange({ ...values, items: values.items.filter((_, j) => j !== i) })}
        />
      ))}
      <button
        type="button"
        className="button"
        onClick={() => onChange({ ...values, items: [...values.items, emptyItem()] })}
      >
        Add an item
      </button>
    </div>
  );
}
