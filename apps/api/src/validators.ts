/**
 * The app's schema validators: bodies strict (no type coercion), query strings and path parameters coercing text
 * to numbers. The upload thread checks its body with the same body validator, so its messages read the same.
 */

import { Ajv, type Options as AjvOptions } from "ajv";
import formatsModule from "ajv-formats";

type AddFormats = (ajv: Ajv) => unknown;
const addFormats: AddFormats =
  (formatsModule as unknown as { default?: AddFormats }).default ?? (formatsModule as unknown as AddFormats);

/** Two validators: bodies are strict (no type coercion), query strings and params coerce text to numbers. */
export function validators(): { body: Ajv; other: Ajv } {
  const common: AjvOptions = {
    useDefaults: true,
    removeAdditional: false,
    allErrors: false,
    verbose: true,
    strict: false,
  };
  const body = new Ajv({ ...common, coerceTypes: false });
  const other = new Ajv({ ...common, coerceTypes: "array" });
  addFormats(body);
  addFormats(other);
  return { body, other };
}
