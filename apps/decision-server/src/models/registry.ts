/** The models a server answers with, the `workbench-latest` alias, and the GET /v1/models listing. */

import { checkpointModel } from "../bayes/checkpoint-model.js";
import type { LoadedCheckpoints } from "../bayes/checkpoints.js";
import { DEFAULT_LATEST, LATEST_ALIAS, VERSIONS } from "../bayes/versions.js";
import { lexicalModel } from "./lexical.js";
import type { DecisionModel } from "./types.js";

/** One entry of GET /v1/models. */
interface ModelListing {
  name: string;
  description: string;
  /** For an alias: the model it resolves to. */
  alias_of?: string;
  /** For a checkpoint version: the dataset questions it was trained for. */
  checkpoints?: string[];
}

/** Resolves model names (aliases included) and lists them. */
export interface ModelRegistry {
  resolve(name: string): DecisionModel | undefined;
  names(): string[];
  listing(): { models: ModelListing[]; aliases: Record<string, string> };
}

/** Builds the registry: `lexical`, every checkpoint version (when loaded) and the alias. */
export function buildRegistry(
  checkpoints: LoadedCheckpoints | null,
  alias: string = DEFAULT_LATEST,
): ModelRegistry {
  const models = new Map<string, DecisionModel>([[lexicalModel.name, lexicalModel]]);
  const listing: ModelListing[] = [{ name: lexicalModel.name, description: lexicalModel.description }];
  const aliases: Record<string, string> = {};
  if (checkpoints) {
    for (const config of VERSIONS) {
      const trained = checkpoints.versions.find((v) => v.version === config.name);
      if (!trained)
        throw new Error(`checkpoint version ${config.name} is missing from ${checkpoints.cacheDir}`);
      const model = checkpointModel(config, trained);
      models.set(config.name, model);
      listing.push({
        name: config.name,
        description: config.description,
        checkpoints: model.checkpoints.map((c) => `${c.dataset}/${c.question}`),
      });
    }
    const target = models.get(alias);
    if (!target || alias === LATEST_ALIAS) {
      throw new Error(
        `${LATEST_ALIAS} must resolve to one of ${[...models.keys()].map((n) => `'${n}'`).join(", ")}; got '${alias}'`,
      );
    }
    models.set(LATEST_ALIAS, target);
    aliases[LATEST_ALIAS] = alias;
    listing.push({ name: LATEST_ALIAS, description: `alias of ${alias}`, alias_of: alias });
  }
  return {
    resolve: (name) => models.get(name),
    names: () => [...models.keys()],
    listing: () => ({ models: listing, aliases }),
  };
}
