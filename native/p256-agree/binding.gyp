{
  "targets": [
    {
      "target_name": "p256_agree",
      "sources": ["agree.c"],
      "cflags": ["-O2", "-Wall", "-Wextra", "-Werror=deprecated-declarations"]
    }
  ]
}
