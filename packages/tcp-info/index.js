'use strict';
// The addon is built on install (node-gyp); where it could not be built, `available` is false and the
// caller falls back to what the socket accepted.
let native = null;
try {
  native = require('./build/Release/tcp_info.node');
} catch {
  native = null;
}

module.exports = {
  available: native !== null,
  bytesAcked: (fd) => (native ? native.bytesAcked(fd) : null),
  setReceiveBuffer: (fd, bytes) => (native ? native.setReceiveBuffer(fd, bytes) : null),
};
