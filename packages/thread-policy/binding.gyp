{
  "targets": [
    {
      "target_name": "thread_policy",
      "sources": ["src/thread_policy.c"],
      "defines": ["NAPI_VERSION=8"],
      "cflags": ["-Wall", "-Wextra", "-O2"]
    }
  ]
}
