// The bytes a TCP peer has acknowledged, read from the kernel (Linux TCP_INFO, tcpi_bytes_acked, since
// Linux 4.1). An export is charged by the rows in those bytes, not by what was handed to the socket's
// send buffer, which the peer may never receive. Node-API, so one build serves every Node version.
#include <node_api.h>
#include <stddef.h>
#include <sys/socket.h>
#include <netinet/in.h>
#ifdef __linux__
#include <linux/tcp.h>
#endif

static napi_value null_value(napi_env env) {
  napi_value out;
  napi_get_null(env, &out);
  return out;
}

// bytesAcked(fd): the peer's acknowledged byte count of the socket, or null where it cannot be read.
static napi_value bytes_acked(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 1) return null_value(env);
  int32_t fd;
  if (napi_get_value_int32(env, argv[0], &fd) != napi_ok || fd < 0) return null_value(env);
#ifdef __linux__
  struct tcp_info ti;
  socklen_t len = sizeof ti;
  if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len) != 0) return null_value(env);
  // An older kernel fills less of the struct: then the field is not there.
  if (len < offsetof(struct tcp_info, tcpi_bytes_acked) + sizeof ti.tcpi_bytes_acked) return null_value(env);
  napi_value out;
  napi_create_double(env, (double)ti.tcpi_bytes_acked, &out);
  return out;
#else
  return null_value(env);
#endif
}

// setReceiveBuffer(fd, bytes): SO_RCVBUF, for tests that act as a client with a small receive buffer.
static napi_value set_receive_buffer(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  napi_value result;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 2) return null_value(env);
  int32_t fd, bytes;
  if (napi_get_value_int32(env, argv[0], &fd) != napi_ok || napi_get_value_int32(env, argv[1], &bytes) != napi_ok)
    return null_value(env);
  int ok = setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &bytes, sizeof bytes) == 0;
  napi_get_boolean(env, ok, &result);
  return result;
}

static napi_value init(napi_env env, napi_value exports) {
  napi_property_descriptor props[] = {
      {"bytesAcked", NULL, bytes_acked, NULL, NULL, NULL, napi_default, NULL},
      {"setReceiveBuffer", NULL, set_receive_buffer, NULL, NULL, NULL, napi_default, NULL},
  };
  napi_define_properties(env, exports, 2, props);
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, init)
