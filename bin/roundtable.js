#!/usr/bin/env node
'use strict';
const path = require('node:path');
const fs = require('node:fs');
const bundle = path.join(__dirname, '..', 'dist', 'daemon', 'cli.js');
if (!fs.existsSync(bundle)) {
  process.stderr.write('roundtable: the CLI is not built yet; run `npm run build` first\n');
  process.exit(1);
}
require(bundle)
  .main(process.argv.slice(2))
  .then((code) => {
    process.exitCode = code;
  });
