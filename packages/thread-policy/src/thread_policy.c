// Linux's SCHED_IDLE for the calling thread. Node sets only nice values (os.setPriority); SCHED_IDLE is a
// policy, not a nice value: a thread under it runs only when no ordinary thread wants the core, and an
// ordinary thread that wakes up takes the core from it at once. Node-API, so one build serves every Node
// version and every worker thread.
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <node_api.h>
#ifdef __linux__
#include <sched.h>
#endif

// setIdle(): true when the kernel put the calling thread under SCHED_IDLE, false where it refused or the
// platform has no such policy. No privilege is needed to move a thread there (only to move it back).
static napi_value set_idle(napi_env env, napi_callback_info info) {
  (void)info;
  int ok = 0;
#ifdef __linux__
  struct sched_param param = {.sched_priority = 0};
  // A pid of 0 is the calling thread, not the whole process.
  ok = sched_setscheduler(0, SCHED_IDLE, &param) == 0;
#endif
  napi_value out;
  napi_get_boolean(env, ok, &out);
  return out;
}

static napi_value init(napi_env env, napi_value exports) {
  napi_property_descriptor props[] = {
      {"setIdle", NULL, set_idle, NULL, NULL, NULL, napi_default, NULL},
  };
  napi_define_properties(env, exports, 1, props);
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, init)
