#!/usr/bin/env node
/** The `workbench` command (see dispatch.ts): runs it and exits with its code. */

import { main } from "./dispatch.js";

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`${(err as Error).stack ?? err}\n`);
    process.exit(1);
  },
);
