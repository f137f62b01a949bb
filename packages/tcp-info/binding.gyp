{
  "targets": [
    {
      "target_name": "tcp_info",
      "sources": ["src/tcp_info.c"],
      "defines": ["NAPI_VERSION=8"],
      "cflags": ["-Wall", "-Wextra", "-O2"]
    }
  ]
}
