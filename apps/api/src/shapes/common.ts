/** The building blocks of every shape: nullable values, string enums, open maps, ids and the error body. */

import { type Static, type TObject, type TSchema, type TUnion, Type } from "typebox";
import { NAME_MAX, SPLIT_CHOICES, SPLITS } from "./limits.js";

/**
 * A union written as one list of JSON types when its members have distinct types and keywords that agree (the
 * serializer tells them apart by `typeof`; an `anyOf` makes it compile a validator on a route's first answer: 66 ms
 * of a 1k run's first report), else as `anyOf`: a string beside an array or an object (the serializer would write
 * an array as one joined string), and a const or enum beside another type.
 */
export const Either = <T extends TSchema[]>(parts: [...T], options: { description?: string } = {}) =>
  Type.Unsafe<Static<TUnion<T>>>(typeList(parts, options));

/** A value or null (see Either). */
export const Nullable = <T extends TSchema>(t: T, options: { description?: string } = {}) => {
  const { anyOf, ...outer } = t as unknown as Json;
  return Type.Unsafe<Static<T> | null>(
    typeList([...((anyOf ?? [t]) as TSchema[]), Type.Null()], anyOf ? { ...outer, ...options } : options),
  );
};

type Json = { type?: unknown; anyOf?: Json[]; [key: string]: unknown };

function typeList(parts: TSchema[], options: Record<string, unknown>): TSchema {
  const merged: Json = { ...options };
  const types: string[] = [];
  for (const part of parts as Json[]) {
    if (typeof part.type !== "string" || types.includes(part.type)) return Type.Union(parts, options);
    types.push(part.type);
    for (const [key, value] of Object.entries(part)) {
      if (key === "type") continue;
      if (key in merged && JSON.stringify(merged[key]) !== JSON.stringify(value)) {
        return Type.Union(parts, options);
      }
      merged[key] = value;
    }
  }
  // the serializer's string branch takes anything with its own toString (an array: "a,b"), and a keyword of one
  // member (const, enum) would hold for the others' values too
  const stringLike = types.includes("string") && (types.includes("array") || types.includes("object"));
  const values = types.filter((t) => t !== "null").length;
  if (stringLike || "const" in merged || ("enum" in merged && values > 1)) return Type.Union(parts, options);
  if (Array.isArray(merged.enum)) merged.enum = [...merged.enum, null];
  return { ...merged, type: types } as TSchema;
}

/** One of a few strings, as `{type: "string", enum}` (the serializer writes it as a plain string). */
export const StringEnum = <const T extends readonly string[]>(values: T, description?: string) =>
  Type.Unsafe<T[number]>({ type: "string", enum: [...values], ...(description ? { description } : {}) });

/** A number or null as `{type: ["number", "null"]}` (the validator's message names both types). */
export const NumberOrNull = (description?: string) =>
  Nullable(Type.Number(), description ? { description } : {});

/** An object with any keys, each value of one shape. */
export const Dict = <T extends TSchema>(value: T, description?: string) =>
  Type.Unsafe<Record<string, Static<T>>>({
    type: "object",
    additionalProperties: value,
    ...(description ? { description } : {}),
  });

/** A JSON object with anything inside, typed as `T` (a document whose own validator lives elsewhere). */
export const OpenObject = <T = Record<string, unknown>>(description?: string) =>
  Type.Unsafe<T>({ type: "object", additionalProperties: true, ...(description ? { description } : {}) });

/** Any JSON value. */
export const AnyValue = Type.Unknown();

/** A name or id. */
export const Name = (description?: string) =>
  Type.String({ minLength: 1, maxLength: NAME_MAX, ...(description ? { description } : {}) });

/** Path `:id`. */
export const IdParams = Type.Object({ id: Name() }, { additionalProperties: false });

/** `?force=true`. */
export const ForceQuery = Type.Object(
  { force: Type.Optional(Type.Boolean({ description: "true or false" })) },
  { additionalProperties: false },
);

/** The three splits. */
export const SplitSchema = StringEnum(SPLITS);
export type Split = Static<typeof SplitSchema>;

/** A split, or all of the run's. */
export const SplitChoiceSchema = StringEnum(SPLIT_CHOICES, "a split, or all");
export type SplitChoice = Static<typeof SplitChoiceSchema>;

/** The error body. */
export const ErrorBody = Type.Object({
  error: Type.Object({
    code: Type.String(),
    message: Type.String(),
    details: Type.Optional(Type.Array(OpenObject())),
  }),
});
export type ErrorBody = Static<typeof ErrorBody>;

/** Error answers of every route (4xx/5xx). */
export const errorResponses = { "4xx": ErrorBody, "5xx": ErrorBody } as const;

/** A 204's empty body. */
export const NoContent = Type.Null();

/**
 * A number with its interval: [point, low, high]. Each may be written as null (a NaN stored through JSON.stringify
 * reads back as null, and the serializer would write a null number as 0).
 */
export const CISchema = Type.Unsafe<[number, number, number]>(
  Type.Tuple([NumberOrNull(), NumberOrNull(), NumberOrNull()]),
);
export type CI = Static<typeof CISchema>;
/** A secondary number: low and high null when it was not resampled. */
export const MaybeCISchema = Type.Tuple([Type.Number(), NumberOrNull(), NumberOrNull()]);
export type MaybeCI = Static<typeof MaybeCISchema>;

/**
 * An object the serializer writes in the order its properties are listed. fast-json-stringify writes required
 * properties before optional ones, so a required property listed after an optional one is left out of the JSON
 * schema's `required` (the TypeScript type still requires it).
 */
export const InOrder = <T extends TObject>(t: T) => {
  const keys = Object.keys(t.properties);
  const required: readonly string[] = t.required ?? [];
  const firstOptional = keys.findIndex((k) => !required.includes(k));
  return Type.Unsafe<Static<T>>({
    ...t,
    required: firstOptional < 0 ? required : keys.slice(0, firstOptional),
  });
};
