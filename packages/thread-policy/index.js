'use strict';
// The addon is built on install (node-gyp); where it could not be built, `available` is false and
// setIdle() answers false, leaving the thread as it was.
let native = null;
try {
  native = require('./build/Release/thread_policy.node');
} catch {
  native = null;
}

module.exports = {
  available: native !== null,
  setIdle: () => (native ? native.setIdle() : false),
};
