#!/usr/bin/env node
// The bin that npm links as node_modules/.bin/regdata. It lives in a package of its own because npm 11's
// `npx <name>` installs the current package into its npx cache on every call when the package itself
// declares a bin of that name (about 0.25 s more); a linked dependency's bin is run directly.
import '../../bin/regdata.mjs';
